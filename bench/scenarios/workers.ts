/**
 * `workers`: `/flags/definitions` and `POST /flags?v=2` with WORKERS=1 and WORKERS=2 (each on a
 * fresh database with the same 200 flags and 2 000 stored persons), same autocannon settings;
 * the table gives the ratio. On a 2-core machine the load generator shares the cores: run
 * `taskset -c 0 npm run bench` on a larger machine to give it one of its own (the service is
 * spawned from the bench, so pin the service with `taskset -c 1-N` there), and read the machine's
 * idle share in the log before concluding what bounds it.
 */
import type { BenchConfig } from '../lib/config.ts';
import { expectStatus } from '../lib/http.ts';
import { measureSettingsOf, runOperation, type OperationResult } from '../lib/measure.ts';
import { withLoadGeneratorPinned } from '../lib/pin.ts';
import { table } from '../lib/report.ts';
import { projectToken, startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';
import { people, posthogCreateBody, seedFlags, type Person } from './sdk-flags.ts';
import { identifyPeople } from '../lib/identify.ts';

const FLAGS = 200;
const PERSONS = 2_000;
const WORKER_COUNTS = [1, 2] as const;

async function seed(target: BellwetherTarget, token: string, persons: Person[]): Promise<void> {
  for (const flag of seedFlags(FLAGS)) {
    await expectStatus(201, 'POST', `${target.baseUrl}/api/projects/1/feature_flags/`, target.headers, JSON.stringify(posthogCreateBody(flag)));
  }
  await identifyPeople(target.baseUrl, token, persons);
}

function definitions(token: string): OperationPlan {
  return {
    method: 'GET',
    next: () => ({ path: `/flags/definitions?token=${token}` }),
    check: (body) => ((body as { flags?: unknown[] } | null)?.flags?.length === FLAGS ? null : `expected ${FLAGS} flags`),
  };
}

function evaluation(token: string, persons: Person[]): OperationPlan {
  const bodies = persons.map((person) => JSON.stringify({ token, distinct_id: person.distinctId, person_properties: person.properties }));
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/flags?v=2', body: bodies[index++ % bodies.length] }),
    check: (body) => (Object.keys((body as { flags?: object } | null)?.flags ?? {}).length === FLAGS ? null : `expected ${FLAGS} flags`),
    rejectBody: (body) => (body.includes('"errorsWhileComputingFlags":false') ? null : 'errorsWhileComputingFlags is not false'),
  };
}

export const workersScenario: Scenario = {
  name: 'workers',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const persons = people(PERSONS);
    const loadgenCpus = process.env.BENCH_LOADGEN_CPUS?.trim() || null;
    const results: Record<string, Record<string, OperationResult>> = {};
    for (const workers of WORKER_COUNTS) {
      log(`workers: starting Bellwether with WORKERS=${workers}`);
      const target = await startBellwether(config.adminDatabaseUrl, { workers });
      try {
        const token = await projectToken(target);
        await seed(target, token, persons);
        const named = { ...target, name: `Bellwether (WORKERS=${workers})` };
        results[workers] = await withLoadGeneratorPinned(loadgenCpus, async () => ({
          definitions: await runOperation(named, definitions(token), settings, 'GET /flags/definitions', log),
          evaluation: await runOperation(named, evaluation(token, persons), settings, 'POST /flags?v=2', log),
        }));
      } finally {
        await target.stop();
      }
    }
    const row = (operation: 'definitions' | 'evaluation', label: string) => {
      const [one, two] = WORKER_COUNTS.map((workers) => results[workers][operation]);
      return [label, `${Math.round(one.requestsPerSecond)}`, `${Math.round(two.requestsPerSecond)}`, `${(two.requestsPerSecond / one.requestsPerSecond).toFixed(2)}×`, `${one.latencyMs.p99} / ${two.latencyMs.p99} ms`];
    };
    const report = [
      `workers: ${FLAGS} flags, ${PERSONS} persons, ${settings.connections} connections, ${settings.durationSeconds} s each (load generator on the same cores)`,
      table([
        ['request', 'req/s WORKERS=1', 'req/s WORKERS=2', 'ratio', 'p99 1 / 2'],
        row('definitions', 'GET /flags/definitions'),
        row('evaluation', 'POST /flags?v=2'),
      ]),
    ].join('\n');
    return { file: 'workers', settings: { flags: FLAGS, persons: PERSONS, ...settings }, report, data: { results } };
  },
};
