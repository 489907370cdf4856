/**
 * Stored regexes against hostile values (the hardening issue): a project whose flags hold
 * `^(a+)+$` (nested repetition) and `.*@example\.com` (an ordinary pattern) on `email`, asked
 * about by `POST /flags?v=2` (public: the project token) with
 * - `email` = 32 × `a` + `!` (exponential for a backtracking engine),
 * - `email` = 200 000 × `a` (quadratic for `.*@…` on a backtracking engine),
 * - a benign address (the control).
 * For each: BENCH_HOSTILE_REQUESTS requests one after another (stopping early once 60 s have
 * passed, or when one gets no answer within 120 s) with `GET /_health` probed beside them every 5 ms, then, when one request takes less
 * than a second, autocannon at BENCH_CONNECTIONS with the probe still running.
 */
import type { BenchConfig } from '../lib/config.ts';
import { expectStatus } from '../lib/http.ts';
import { measureSettingsOf, runOperation, type OperationResult } from '../lib/measure.ts';
import { table, type Aim } from '../lib/report.ts';
import { describeProbe, startSideProbe, type ProbeSummary } from '../lib/side-probe.ts';
import { projectToken, startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';

const PROJECT = 1;
const PROBE_INTERVAL_MS = 5;
const SEQUENCE_BUDGET_MS = 60_000;
const REQUEST_TIMEOUT_MS = 120_000;
const LOAD_ONLY_BELOW_MS = 1000;
const AIM_FLAGS_MS = 10;
const AIM_HEALTH_MS = 50;

const FLAGS = [
  { key: 'hostile-nested', pattern: '^(a+)+$' },
  { key: 'hostile-greedy', pattern: '.*@example\\.com' },
] as const;

interface Case {
  name: string;
  email: string;
}

const CASES: Case[] = [
  { name: "32 × 'a' + '!'", email: `${'a'.repeat(32)}!` },
  { name: "200 000 × 'a'", email: 'a'.repeat(200_000) },
  { name: 'benign (control)', email: 'alice@example.com' },
];

interface Sequence {
  requests: number;
  latencyMs: { p50: number; max: number };
  /** The last request got no answer within REQUEST_TIMEOUT_MS (its time is then a lower bound). */
  timedOut: boolean;
  health: ProbeSummary;
}

interface CaseResult {
  case: string;
  valueLength: number;
  sequence: Sequence;
  load: (OperationResult & { health: ProbeSummary }) | null;
  loadSkipped: string | null;
}

const round = (value: number) => Math.round(value * 100) / 100;

async function createFlags(target: BellwetherTarget): Promise<void> {
  for (const flag of FLAGS) {
    const body = {
      key: flag.key,
      name: `Hostile pattern ${flag.pattern}`,
      filters: { groups: [{ properties: [{ key: 'email', type: 'person', operator: 'regex', value: flag.pattern }], rollout_percentage: 100 }] },
    };
    await expectStatus(201, 'POST', `${target.baseUrl}/api/projects/${PROJECT}/feature_flags/`, target.headers, JSON.stringify(body));
  }
}

function flagsBody(token: string, email: string, index: number): string {
  return JSON.stringify({ token, distinct_id: `hostile-${index}`, person_properties: { email } });
}

/** One request after another, with the side probe running; stops early once the budget is spent. */
async function sequence(target: BellwetherTarget, token: string, email: string, requests: number): Promise<Sequence> {
  const stopProbe = startSideProbe(`${target.baseUrl}/_health`, PROBE_INTERVAL_MS);
  const latencies: number[] = [];
  const started = performance.now();
  let health: ProbeSummary;
  let timedOut = false;
  try {
    for (let i = 0; i < requests && performance.now() - started < SEQUENCE_BUDGET_MS; i += 1) {
      const sent = performance.now();
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${target.baseUrl}/flags?v=2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: flagsBody(token, email, i),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        text = await response.text();
      } catch (error) {
        if ((error as Error).name !== 'TimeoutError') throw error;
        latencies.push(performance.now() - sent); // kept as a lower bound: the answer never came in time
        timedOut = true;
        break;
      }
      latencies.push(performance.now() - sent);
      if (response.status !== 200) throw new Error(`POST /flags?v=2 answered ${response.status}: ${text.slice(0, 300)}`);
      if (!text.includes('"errorsWhileComputingFlags":false')) throw new Error(`POST /flags?v=2 reported errors: ${text.slice(0, 300)}`);
    }
  } finally {
    health = await stopProbe();
  }
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    latencyMs: { p50: round(latencies[Math.floor((latencies.length - 1) / 2)]), max: round(latencies[latencies.length - 1]) },
    timedOut,
    health,
  };
}

function loadPlan(token: string, email: string): OperationPlan {
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/flags?v=2', body: flagsBody(token, email, index++) }),
    rejectBody: (body) => (body.includes('"errorsWhileComputingFlags":false') ? null : 'errorsWhileComputingFlags is not false'),
  };
}

export const hostileRegexScenario: Scenario = {
  name: 'hostile-regex',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const target = await startBellwether(config.adminDatabaseUrl);
    try {
      log(`${target.name} is up at ${target.baseUrl} (pid ${target.pid}, database ${target.databaseName})`);
      const token = await projectToken(target);
      await createFlags(target);
      const results: CaseResult[] = [];
      for (const hostile of CASES) {
        const seq = await sequence(target, token, hostile.email, config.hostileRequests);
        log(
          `${hostile.name}: ${seq.requests} requests one at a time, /flags p50 ${seq.latencyMs.p50} ms, max ${seq.latencyMs.max} ms; ` +
            `beside them ${describeProbe(seq.health)}`,
        );
        let load: CaseResult['load'] = null;
        let loadSkipped: string | null = null;
        if (seq.latencyMs.max < LOAD_ONLY_BELOW_MS) {
          const stopProbe = startSideProbe(`${target.baseUrl}/_health`, PROBE_INTERVAL_MS);
          let result: OperationResult;
          let health: ProbeSummary;
          try {
            result = await runOperation({ ...target, headers: {} }, loadPlan(token, hostile.email), settings, `POST /flags?v=2 (${hostile.name})`, log);
          } finally {
            health = await stopProbe();
          }
          load = { ...result, health };
          log(`${hostile.name} under load: beside it ${describeProbe(health)}`);
        } else {
          loadSkipped = `one request took ${seq.latencyMs.max} ms`;
        }
        results.push({ case: hostile.name, valueLength: hostile.email.length, sequence: seq, load, loadSkipped });
      }

      const hostileCases = results.filter((r) => r.case !== CASES[CASES.length - 1].name);
      const slowest = Math.max(...hostileCases.map((r) => r.sequence.latencyMs.max));
      const healthOneAtATime = Math.max(...hostileCases.map((r) => r.sequence.health.latencyMs.max));
      const aims: Aim[] = [
        { aim: `/flags?v=2 with a hostile value answers in < ${AIM_FLAGS_MS} ms (slowest single request)`, pass: slowest < AIM_FLAGS_MS, actual: `${slowest} ms` },
        {
          aim: `/_health beside hostile requests never delayed > ${AIM_HEALTH_MS} ms (max, requests one at a time)`,
          pass: healthOneAtATime < AIM_HEALTH_MS,
          actual: `${healthOneAtATime} ms`,
        },
      ];
      const rows = [['case', 'one at a time: /flags p50 / max', '/_health p50 / p99 / max', 'load: req/s', 'load: p50 / p99', 'load: /_health p50 / p99 / max']];
      for (const r of results) {
        const h = r.sequence.health.latencyMs;
        rows.push([
          `${r.case} (${r.valueLength.toLocaleString('en-US')} chars)`,
          `${r.sequence.latencyMs.p50} / ${r.sequence.timedOut ? '> ' : ''}${r.sequence.latencyMs.max} ms (${r.sequence.requests})`,
          `${h.p50} / ${h.p99} / ${h.max} ms`,
          r.load ? `${Math.round(r.load.requestsPerSecond).toLocaleString('en-US')}${r.load.disturbed ? ' *' : ''}` : `skipped: ${r.loadSkipped}`,
          r.load ? `${r.load.latencyMs.p50} / ${r.load.latencyMs.p99} ms` : '-',
          r.load ? `${r.load.health.latencyMs.p50} / ${r.load.health.latencyMs.p99} / ${r.load.health.latencyMs.max} ms` : '-',
        ]);
      }
      const verdict = (aim: Aim) => (aim.pass === null ? 'n/a ' : aim.pass ? 'PASS' : 'MISS');
      const report =
        `Hostile regexes: flags ${FLAGS.map((f) => `${f.key} = ${f.pattern}`).join(', ')} on email; POST /flags?v=2; ` +
        `/_health probed every ${PROBE_INTERVAL_MS} ms beside; load at ${settings.connections} connections\n` +
        `${table(rows)}\n\nAims:\n${aims.map((aim) => `  ${verdict(aim)}  ${aim.aim}: ${aim.actual}`).join('\n')}\n`;
      return {
        file: 'hostile-regex',
        settings: { ...settings, hostileRequests: config.hostileRequests, probeIntervalMs: PROBE_INTERVAL_MS, flags: FLAGS },
        report,
        data: { cases: results, aims },
      };
    } finally {
      await target.stop();
    }
  },
};
