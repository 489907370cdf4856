/**
 * `playground`: `POST /api/projects/1/feature_flags/playground/` with the 1 000 mixed flags and the
 * cohorts of flag-cpu-flags.ts, each request a different made-up person (distinct id and person
 * properties), answering every flag with its value and reason. Measured with one connection (a
 * person trying values in the console) and with BENCH_CONNECTIONS. Aim: p50 < 50 ms at one connection.
 */
import os from 'node:os';
import type { BenchConfig } from '../lib/config.ts';
import { runLoad, type Measurement } from '../lib/autocannon.ts';
import { measureSettingsOf, probe } from '../lib/measure.ts';
import { table } from '../lib/report.ts';
import { startBellwether } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import { cpuPeople } from './flag-cpu-flags.ts';
import { seedCpuFlags } from './flag-cpu.ts';
import type { Log, Scenario } from './scenario.ts';

const FLAGS = 1_000;
const PEOPLE = 500;
const AIM_P50_MS = 50;

function plan(): OperationPlan {
  const bodies = cpuPeople(PEOPLE).map((person) => JSON.stringify({ distinct_id: person.distinctId, person_properties: person.properties }));
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/api/projects/1/feature_flags/playground/', body: bodies[index++ % bodies.length] }),
    check: (body) => ((body as { flags?: unknown[] } | null)?.flags?.length === FLAGS ? null : `expected ${FLAGS} flags`),
  };
}

export const playgroundScenario: Scenario = {
  name: 'playground',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    let target = await startBellwether(config.adminDatabaseUrl);
    const results: Record<string, Measurement> = {};
    try {
      await seedCpuFlags(target, FLAGS, log);
      target = await target.restart();
      const load = plan();
      await probe(target, load, 'playground');
      for (const connections of [1, settings.connections]) {
        const label = `playground, ${connections} connection${connections === 1 ? '' : 's'}`;
        await runLoad(target, load, { ...settings, connections, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
        const measured = await runLoad(target, load, { ...settings, connections }, label);
        log(`${label}: ${measured.requestsPerSecond} req/s, p50 ${measured.latencyMs.p50} ms, p99 ${measured.latencyMs.p99} ms`);
        results[String(connections)] = measured;
      }
    } finally {
      await target.stop();
    }
    const one = results['1'];
    const aim = one.latencyMs.p50 < AIM_P50_MS ? 'PASS' : 'MISS';
    const report = [
      `playground: ${FLAGS} flags (mixed, with cohorts), a different made-up person per request, ${settings.durationSeconds} s each; load average ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}`,
      table([
        ['connections', 'req/s', 'p50 / p99', 'B/response'],
        ...Object.entries(results).map(([connections, m]) => [connections, `${Math.round(m.requestsPerSecond)}`, `${m.latencyMs.p50} / ${m.latencyMs.p99} ms`, `${m.bytesPerResponse}`]),
      ]),
      `${aim} p50 < ${AIM_P50_MS} ms for ${FLAGS} flags at one connection (${one.latencyMs.p50} ms)`,
    ].join('\n');
    return { file: 'playground', settings: { flags: FLAGS, people: PEOPLE, ...settings }, report, data: { results, aim: { p50Ms: AIM_P50_MS, met: aim === 'PASS' } } };
  },
};
