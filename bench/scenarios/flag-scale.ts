/**
 * How much work one project's flag count puts on every request (the hardening issue): for each
 * of BENCH_FLAG_SCALE flag counts, project 1's flags are replaced with SQL (the `sdk` scenario's
 * generated flags), the server restarted, and `POST /flags?v=2` measured at BENCH_CONNECTIONS
 * with `GET /_health` and `GET /_readyz` probed beside the load (one at a time, 20 ms apart): what
 * a load balancer's health check and an orchestrator's readiness check see while SDKs ask.
 */
import type { BenchConfig } from '../lib/config.ts';
import { describeCpu } from '../lib/cpu-monitor.ts';
import { measureSettingsOf, runOperation, type OperationResult } from '../lib/measure.ts';
import { table } from '../lib/report.ts';
import { describeProbe, startSideProbe, type ProbeSummary } from '../lib/side-probe.ts';
import { projectToken, startBellwether } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import { replaceFlagsWithSql } from './flags-sql.ts';
import type { Log, Scenario } from './scenario.ts';
import { people, seedFlags } from './sdk-flags.ts';

const PROBE_INTERVAL_MS = 20;
/** One answer of 25 000 flags is several MB: give it time on a busy machine. */
const ANSWER_TIMEOUT_SECONDS = 60;
const PERSONS = 5_000;

interface ScaleRun {
  flags: number;
  result: OperationResult;
  health: ProbeSummary;
  readyz: ProbeSummary;
}

function evaluationPlan(token: string, expected: number): OperationPlan {
  const bodies = people(PERSONS).map((person) => JSON.stringify({ token, distinct_id: person.distinctId, person_properties: person.properties }));
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/flags?v=2', body: bodies[index++ % bodies.length] }),
    check: (body) => {
      const flags = (body as { flags?: Record<string, unknown> } | null)?.flags;
      if (!flags) return 'the answer has no flags map';
      const n = Object.keys(flags).length;
      return n === expected ? null : `the answer holds ${n} flags, expected ${expected}`;
    },
    rejectBody: (body) => (body.includes('"errorsWhileComputingFlags":false') ? null : 'errorsWhileComputingFlags is not false'),
  };
}

export const flagScaleScenario: Scenario = {
  name: 'flag-scale',
  async run(config: BenchConfig, log: Log) {
    const settings = { ...measureSettingsOf(config), timeoutSeconds: ANSWER_TIMEOUT_SECONDS };
    let target = await startBellwether(config.adminDatabaseUrl);
    try {
      const token = await projectToken(target);
      const runs: ScaleRun[] = [];
      for (const count of config.flagScale) {
        await replaceFlagsWithSql(target.databaseUrl, seedFlags(count));
        target = await target.restart();
        log(`Bellwether: ${count} flags inserted with SQL, server restarted (pid ${target.pid})`);
        const stopHealth = startSideProbe(`${target.baseUrl}/_health`, PROBE_INTERVAL_MS);
        const stopReadyz = startSideProbe(`${target.baseUrl}/_readyz`, PROBE_INTERVAL_MS);
        let result: OperationResult;
        let health: ProbeSummary;
        let readyz: ProbeSummary;
        try {
          result = await runOperation({ ...target, headers: {} }, evaluationPlan(token, count), settings, `POST /flags?v=2 (${count} flags)`, log);
        } finally {
          health = await stopHealth();
          readyz = await stopReadyz();
        }
        log(`${count} flags: beside the load ${describeProbe(health)}; ${describeProbe(readyz)}`);
        runs.push({ flags: count, result, health, readyz });
      }

      const rows = [['flags', 'req/s', 'p50 / p99', 'B/response', '/_health p50 / p99 / max', '/_readyz p50 / p99 / max', 'cores']];
      for (const run of runs) {
        const h = run.health.latencyMs;
        const r = run.readyz.latencyMs;
        rows.push([
          run.flags.toLocaleString('en-US'),
          `${Math.round(run.result.requestsPerSecond).toLocaleString('en-US')}${run.result.disturbed ? ' *' : ''}`,
          `${run.result.latencyMs.p50} / ${run.result.latencyMs.p99} ms`,
          run.result.bytesPerResponse.toLocaleString('en-US'),
          `${h.p50} / ${h.p99} / ${h.max} ms`,
          `${r.p50} / ${r.p99} / ${r.max} ms`,
          describeCpu(run.result.cpu),
        ]);
      }
      const report =
        `Flag count per project: POST /flags?v=2 at ${settings.connections} connections (a different person per request, ` +
        `properties sent, none stored), /_health and /_readyz probed every ${PROBE_INTERVAL_MS} ms beside the load\n${table(rows)}\n`;
      return {
        file: 'flag-scale',
        settings: { ...settings, flagScale: config.flagScale, probeIntervalMs: PROBE_INTERVAL_MS },
        report,
        data: { runs },
      };
    } finally {
      await target.stop();
    }
  },
};
