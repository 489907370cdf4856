/**
 * `hot`: the hot SDK paths with the ceiling beside them, before and after in one run.
 *
 * - `POST /flags?v=2` (200 flags as the sdk scenario makes them, 2 000 stored persons, a different
 *   person per request with the properties a server SDK sends);
 * - `GET /flags/definitions` with the personal API key (Bearer), plain and with `accept-encoding: gzip`.
 *
 * Servers, all up for the whole run and measured one at a time, operation by operation, in
 * `BENCH_HOT_ROUNDS` (3) rounds whose order rotates (the server measured last in one round is
 * measured first in the next: whichever goes last had paid 7–39 % more CPU per request):
 * - this checkout (`WORKERS=1`, or `BENCH_HOT_WORKERS`);
 * - `BENCH_BASELINE_DIR` when set: another checkout (e.g. main's, `git archive main | tar -x -C DIR`
 *   with a `node_modules` symlink to this one's), started the same way on its own database;
 * - the ceiling (bench/peers/ceiling.mjs): one plain `node:http` process that reads and
 *   `JSON.parse`s the request body and writes the same answer bytes this checkout sent.
 * The table gives each round's req/s and their median, p50/p99 of the median round, the median of
 * each round's ratio to that round's ceiling, and the server's CPU time per request (median of the
 * rounds; steadier than req/s when other work shares the cores).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnService, type ServiceProcess } from '../lib/child.ts';
import type { BenchConfig } from '../lib/config.ts';
import { identifyPeople } from '../lib/identify.ts';
import { expectStatus } from '../lib/http.ts';
import { measureSettingsOf, runOperation, type MeasuredTarget, type OperationResult } from '../lib/measure.ts';
import { median } from '../lib/median.ts';
import { table } from '../lib/report.ts';
import { projectToken, startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';
import { people, posthogCreateBody, seedFlags, type Person } from './sdk-flags.ts';

const FLAGS = 200;
const PERSONS = 2_000;
const CEILING = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../peers/ceiling.mjs');

interface Server {
  name: string;
  target: MeasuredTarget;
  token: string;
  stop(): Promise<void>;
}

/** Workers of each Bellwether (BENCH_HOT_WORKERS, default 1). */
function workers(): number {
  const configured = Number(process.env.BENCH_HOT_WORKERS ?? '1');
  return Number.isInteger(configured) && configured >= 1 ? configured : 1;
}

/** Rounds per operation (BENCH_HOT_ROUNDS, default 3, at most 20). */
function rounds(): number {
  const configured = Number(process.env.BENCH_HOT_ROUNDS ?? '3');
  return Number.isInteger(configured) && configured >= 1 && configured <= 20 ? configured : 3;
}

/** `list` started `by` places later, wrapping round. */
const rotated = <T>(list: readonly T[], by: number): T[] => list.map((_, i) => list[(i + by) % list.length]);

/** The server's CPU time per request in µs (NaN when its CPU was not sampled). */
const cpuPerRequest = (r: OperationResult) => (r.cpu ? ((r.cpu.serverPercent / 100) * r.cpu.cores * 1e6) / r.requestsPerSecond : Number.NaN);

async function bellwether(config: BenchConfig, name: string, persons: Person[], root?: string): Promise<Server & { bellwether: BellwetherTarget }> {
  const target = await startBellwether(config.adminDatabaseUrl, { root, workers: workers() });
  try {
    const token = await projectToken(target);
    for (const flag of seedFlags(FLAGS)) {
      await expectStatus(201, 'POST', `${target.baseUrl}/api/projects/1/feature_flags/`, target.headers, JSON.stringify(posthogCreateBody(flag)));
    }
    await identifyPeople(target.baseUrl, token, persons);
    return { name, target: { ...target, name }, token, bellwether: target, stop: () => target.stop() };
  } catch (error) {
    await target.stop();
    throw error;
  }
}

/** The ceiling, answering with the bytes `source` sends for the same requests. */
async function ceiling(source: Server, persons: Person[]): Promise<Server> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'bench-ceiling-'));
  const flags = await fetch(`${source.target.baseUrl}/flags?v=2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: source.token, distinct_id: persons[0].distinctId, person_properties: persons[0].properties }),
  });
  const definitions = await fetch(`${source.target.baseUrl}/flags/definitions`, { headers: source.target.headers });
  writeFileSync(path.join(directory, 'flags.json'), Buffer.from(await flags.arrayBuffer()));
  writeFileSync(path.join(directory, 'definitions.json'), Buffer.from(await definitions.arrayBuffer()));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const running: ServiceProcess = await spawnService({
    name: 'ceiling',
    command: process.execPath,
    args: [CEILING, String(port), `/flags?=${directory}/flags.json`, `/flags/definitions=${directory}/definitions.json`],
    cwd: directory,
    env: {},
    readyUrl: `${baseUrl}/_health`,
  });
  return {
    name: 'ceiling (node:http)',
    token: source.token,
    target: { name: 'ceiling (node:http)', baseUrl, headers: {}, pid: running.pid, databaseName: '' },
    stop: async () => {
      await running.stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

function evaluation(token: string, persons: Person[]): OperationPlan {
  const bodies = persons.map((person) => JSON.stringify({ token, distinct_id: person.distinctId, person_properties: person.properties }));
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/flags?v=2', body: bodies[index++ % bodies.length] }),
    check: (body) => (Object.keys((body as { flags?: object } | null)?.flags ?? {}).length === FLAGS ? null : `expected ${FLAGS} flags`),
    rejectBody: (body) => (body.includes('"errorsWhileComputingFlags":true') ? 'errorsWhileComputingFlags is true' : null),
  };
}

function definitions(gzip: boolean): OperationPlan {
  return {
    method: 'GET',
    headers: gzip ? { 'accept-encoding': 'gzip' } : {},
    next: () => ({ path: '/flags/definitions' }),
    check: gzip ? undefined : (body) => ((body as { flags?: unknown[] } | null)?.flags?.length === FLAGS ? null : `expected ${FLAGS} flags`),
  };
}

const OPERATIONS = [
  { id: 'flags', label: 'POST /flags?v=2 (200 flags)', plan: (server: Server, persons: Person[]) => evaluation(server.token, persons) },
  { id: 'definitions', label: 'GET /flags/definitions (Bearer)', plan: () => definitions(false) },
  { id: 'definitions-gzip', label: 'GET /flags/definitions (Bearer, gzip)', plan: () => definitions(true) },
] as const;

export const hotScenario: Scenario = {
  name: 'hot',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const persons = people(PERSONS);
    const baselineDir = process.env.BENCH_BASELINE_DIR?.trim() || null;
    // BENCH_HOT_ONLY=flags (comma-separated operation ids): e.g. one operation under a profiler.
    const only = (process.env.BENCH_HOT_ONLY ?? '').split(',').map((id) => id.trim()).filter(Boolean);
    const operations = OPERATIONS.filter((operation) => only.length === 0 || only.includes(operation.id));
    const servers: Server[] = [];
    try {
      log('hot: starting this checkout');
      const current = await bellwether(config, 'this checkout', persons);
      servers.push(current);
      if (baselineDir) {
        log(`hot: starting the baseline in ${baselineDir}`);
        servers.push(await bellwether(config, `baseline (${path.basename(baselineDir)})`, persons, baselineDir));
      }
      servers.push(await ceiling(current, persons));
      const roundCount = rounds();
      // Each operation's results per server, one per round.
      const results: Record<string, Record<string, OperationResult[]>> = {};
      for (const operation of operations) {
        results[operation.id] = Object.fromEntries(servers.map((server) => [server.name, []]));
        for (let round = 0; round < roundCount; round++) {
          for (const server of rotated([...servers].reverse(), round)) {
            const label = `${operation.label}, round ${round + 1}/${roundCount}`;
            results[operation.id][server.name].push(await runOperation(server.target, operation.plan(server, persons), settings, label, log));
          }
        }
      }
      const ceilingName = servers[servers.length - 1].name;
      const rows = [['request', 'server', 'req/s each round', 'median req/s', 'p50 / p99 ms (median round)', 'B per answer', 'ratio to ceiling (median of rounds)', 'server CPU µs per request (median)', 'other work % (max)']];
      for (const operation of operations) {
        const tops = results[operation.id][ceilingName].map((r) => r.requestsPerSecond);
        for (const server of servers) {
          const measured = results[operation.id][server.name];
          const rates = measured.map((r) => r.requestsPerSecond);
          const middle = [...measured].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(measured.length / 2)];
          const cpu = median(measured.map(cpuPerRequest));
          rows.push([
            operation.label,
            server.name,
            rates.map((rate) => `${Math.round(rate)}`).join(', '),
            `${Math.round(median(rates))}`,
            `${middle.latencyMs.p50} / ${middle.latencyMs.p99}`,
            `${middle.bytesPerResponse}`,
            median(rates.map((rate, round) => rate / tops[round])).toFixed(2),
            Number.isNaN(cpu) ? '?' : `${Math.round(cpu)}`,
            `${Math.max(...measured.map((r) => r.cpu?.foreignPercent ?? 0))}`,
          ]);
        }
      }
      const report = [
        `hot: ${FLAGS} flags, ${PERSONS} persons, ${settings.connections} connections, ${settings.durationSeconds} s each, ${roundCount} rounds in rotating order, WORKERS=${workers()}; load average ${os.loadavg().map((n) => n.toFixed(1)).join(' / ')}`,
        table(rows),
      ].join('\n');
      return {
        file: 'hot',
        settings: { flags: FLAGS, persons: PERSONS, baseline: baselineDir, workers: workers(), rounds: roundCount, ...settings },
        report,
        data: { results, loadAverage: os.loadavg() },
      };
    } finally {
      for (const server of servers) await server.stop();
    }
  },
};
