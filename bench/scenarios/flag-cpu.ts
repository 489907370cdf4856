/**
 * `flag-cpu`: what one flag evaluation costs the server, in CPU time. 1 000 flags (flag-cpu-flags.ts:
 * rollouts, person conditions, multivariate, payloads, regex, semver, dates, cohorts, dependencies)
 * created through the API in one project, 2 000 stored persons; then `POST /flags?v=2` (a different
 * person per request, properties sent) and `GET /flags/definitions` under autocannon, with the
 * server process's CPU time (user + system from /proc) read before and after the window: CPU per
 * request and per flag evaluated. CPU time barely moves with other load on the machine, unlike
 * req/s. Last, the engine alone in this process (bench/lib/engine-cpu.ts): CPU µs per flag with no
 * HTTP, database or rendering.
 */
import os from 'node:os';
import type { BenchConfig } from '../lib/config.ts';
import { measureEngine, type EngineCpu } from '../lib/engine-cpu.ts';
import { describeCpu, processCpuSeconds, watchCpu, type CpuShare } from '../lib/cpu-monitor.ts';
import { expectStatus } from '../lib/http.ts';
import { measureSettingsOf, probe } from '../lib/measure.ts';
import { runLoad, type Measurement } from '../lib/autocannon.ts';
import { table } from '../lib/report.ts';
import { projectToken, startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';
import { COHORTS, cpuFlags, cpuPeople, filtersWithIds, type CpuPerson } from './flag-cpu-flags.ts';
import { identifyPeople } from '../lib/identify.ts';

const FLAGS = 1_000;
const PERSONS = 2_000;
/** Flags created at once: a dependency names a flag of an earlier batch, which then exists. */
const CREATE_BATCH = 8;
const ENGINE_EVALUATIONS = 2_000;

export interface CpuMeasurement extends Measurement {
  /** Server CPU seconds (user + system) during the window. */
  serverCpuSeconds: number;
  serverCpuMsPerRequest: number;
  /** Flags in each answer (every live flag for `/flags?v=2`, every flag served for definitions). */
  flagsPerRequest: number;
  serverCpuMicrosPerFlag: number;
  cpu: CpuShare | null;
  loadAverage: number[];
}

/** The cohorts and `count` flags of flag-cpu-flags.ts, created through the API in project 1. */
export async function seedCpuFlags(target: BellwetherTarget, count: number, log: Log): Promise<void> {
  const cohortIds: number[] = [];
  for (const cohort of COHORTS) {
    const created = await expectStatus(201, 'POST', `${target.baseUrl}/api/projects/1/cohorts/`, target.headers, JSON.stringify(cohort));
    cohortIds.push((created.body as { id: number }).id);
  }
  const flags = cpuFlags(count);
  const flagIds: number[] = [];
  const started = Date.now();
  for (let start = 0; start < flags.length; start += CREATE_BATCH) {
    const batch = flags.slice(start, start + CREATE_BATCH);
    const created = await Promise.all(
      batch.map((flag) =>
        expectStatus(
          201,
          'POST',
          `${target.baseUrl}/api/projects/1/feature_flags/`,
          target.headers,
          JSON.stringify({ key: flag.key, name: flag.name, active: flag.active, filters: filtersWithIds(flag, cohortIds, flagIds) }),
        ),
      ),
    );
    for (const answer of created) flagIds.push((answer.body as { id: number }).id);
  }
  log(`${flags.length} flags and ${COHORTS.length} cohorts created through the API in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function seed(target: BellwetherTarget, token: string, persons: CpuPerson[], log: Log): Promise<void> {
  await seedCpuFlags(target, FLAGS, log);
  await identifyPeople(target.baseUrl, token, persons);
}

function evaluation(token: string, persons: CpuPerson[]): OperationPlan {
  const bodies = persons.map((person) => JSON.stringify({ token, distinct_id: person.distinctId, person_properties: person.properties }));
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/flags?v=2', body: bodies[index++ % bodies.length] }),
    check: (body) => (Object.keys((body as { flags?: object } | null)?.flags ?? {}).length === FLAGS ? null : `expected ${FLAGS} flags`),
    rejectBody: (body) => (body.includes('"errorsWhileComputingFlags":false') ? null : 'errorsWhileComputingFlags is not false'),
  };
}

function definitions(token: string): OperationPlan {
  return {
    method: 'GET',
    next: () => ({ path: `/flags/definitions?token=${token}` }),
    check: (body) => ((body as { flags?: unknown[] } | null)?.flags?.length === FLAGS ? null : `expected ${FLAGS} flags`),
  };
}

async function measureCpu(
  target: BellwetherTarget,
  plan: OperationPlan,
  settings: ReturnType<typeof measureSettingsOf>,
  label: string,
  log: Log,
): Promise<CpuMeasurement> {
  await probe(target, plan, label);
  await runLoad(target, plan, { ...settings, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
  const endWatch = watchCpu(target);
  const before = processCpuSeconds(target.pid);
  const measurement = await runLoad(target, plan, settings, label);
  const serverCpuSeconds = Math.round((processCpuSeconds(target.pid) - before) * 100) / 100;
  const cpu = endWatch();
  const requests = measurement.totalRequests;
  const result: CpuMeasurement = {
    ...measurement,
    serverCpuSeconds,
    serverCpuMsPerRequest: Math.round(((serverCpuSeconds * 1000) / requests) * 1000) / 1000,
    flagsPerRequest: FLAGS,
    serverCpuMicrosPerFlag: Math.round(((serverCpuSeconds * 1e6) / (requests * FLAGS)) * 1000) / 1000,
    cpu,
    loadAverage: os.loadavg().map((value) => Math.round(value * 10) / 10),
  };
  log(
    `${label}: ${measurement.requestsPerSecond} req/s, p50 ${measurement.latencyMs.p50} ms, p99 ${measurement.latencyMs.p99} ms; ` +
      `server ${result.serverCpuMsPerRequest} CPU ms/request = ${result.serverCpuMicrosPerFlag} µs/flag (cores: ${describeCpu(cpu)}; load ${result.loadAverage.join(' ')})`,
  );
  return result;
}

export const flagCpuScenario: Scenario = {
  name: 'flag-cpu',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const persons = cpuPeople(PERSONS);
    const loadAtStart = os.loadavg().map((value) => Math.round(value * 10) / 10);
    let target = await startBellwether(config.adminDatabaseUrl);
    let results: { evaluation: CpuMeasurement; definitions: CpuMeasurement };
    try {
      const token = await projectToken(target);
      await seed(target, token, persons, log);
      target = await target.restart(); // a fresh process: what it spent seeding is not in the figures
      results = {
        evaluation: await measureCpu(target, evaluation(token, persons), settings, 'POST /flags?v=2', log),
        definitions: await measureCpu(target, definitions(token), settings, 'GET /flags/definitions', log),
      };
    } finally {
      await target.stop();
    }
    const engine: EngineCpu = measureEngine(FLAGS, ENGINE_EVALUATIONS);
    log(`flag-cpu: engine alone ${engine.microsPerFlag} CPU µs/flag (${engine.evaluations} people × ${engine.flags} flags, answers ${engine.answersFingerprint})`);
    const loadAtEnd = os.loadavg().map((value) => Math.round(value * 10) / 10);
    const row = (label: string, m: CpuMeasurement) => [
      label,
      `${Math.round(m.requestsPerSecond)}`,
      `${m.latencyMs.p50} / ${m.latencyMs.p99} ms`,
      `${m.serverCpuMsPerRequest}`,
      `${m.serverCpuMicrosPerFlag}`,
      `${m.bytesPerResponse}`,
    ];
    const report = [
      `flag-cpu: ${FLAGS} flags (mixed), ${PERSONS} persons, ${settings.connections} connections, ${settings.durationSeconds} s each; ` +
        `load average ${loadAtStart.join(' ')} at start, ${loadAtEnd.join(' ')} at end`,
      table([
        ['request', 'req/s', 'p50 / p99', 'server CPU ms/request', 'server CPU µs/flag', 'B/response'],
        row('POST /flags?v=2', results.evaluation),
        row('GET /flags/definitions', results.definitions),
        ['engine alone (in-process)', '', '', `${Math.round((engine.microsPerFlag * FLAGS) / 10) / 100}`, `${engine.microsPerFlag}`, ''],
      ]),
      `Server CPU is user + system time of the server process over the window (/proc, 10 ms ticks) divided by the requests answered;` +
        ` µs/flag divides it by the ${FLAGS} flags each answer holds. The engine row is src/evaluation/ alone (answers ${engine.answersFingerprint}).`,
    ].join('\n');
    return {
      file: 'flag-cpu',
      settings: { flags: FLAGS, persons: PERSONS, engineEvaluations: ENGINE_EVALUATIONS, ...settings },
      report,
      data: { loadAverage: { start: loadAtStart, end: loadAtEnd }, results, engine },
    };
  },
};
