/**
 * `three-process`: three Bellwether processes on one PostgreSQL database, as three nodes behind a
 * load balancer. A ingests only `$feature_flag_called` events at full speed (`POST /batch/`, from
 * an autocannon process of its own), B serves `POST /flags?v=2` under autocannon (in this process),
 * C idles and takes the flag changes.
 *
 * 1. B's `/flags` throughput alone, then with A ingesting: the ratio (aim ≥ 0.9), and B's server
 *    CPU per request in both (what ingestion elsewhere costs B itself: change notices, re-reads).
 * 2. With A ingesting: a flag changed through C (`PATCH`, rollout 0 ↔ 100 %), then A and B polled
 *    (`/flags?v=2` for that flag only, one request after another) until they answer the new value;
 *    the time from C's answer to each node's first new answer, `BENCH_PROPAGATION_CHANGES` (100)
 *    times: p50 / p99 (aim p99 < 250 ms).
 *
 * Pinning: `BENCH_INGEST_CPUS` (e.g. `1`) runs the ingestion load generator under `taskset -c`;
 * `BENCH_LOADGEN_CPUS` pins this process (B's load generator). On 2 cores three servers,
 * PostgreSQL and two load generators share the cores: see the shares in the report.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLoad, type Measurement } from '../lib/autocannon.ts';
import type { BenchConfig } from '../lib/config.ts';
import { describeCpu, processCpuSeconds, watchCpu, type CpuShare } from '../lib/cpu-monitor.ts';
import { expectStatus, request } from '../lib/http.ts';
import { measureSettingsOf, probe } from '../lib/measure.ts';
import { pinProcess, pinned } from '../lib/pin.ts';
import { table } from '../lib/report.ts';
import { projectToken, startAnotherNode, startBellwether, type BellwetherTarget, type NodeProcess } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';
import { people, posthogCreateBody, seedFlags, type Person } from './sdk-flags.ts';
import { identifyPeople } from '../lib/identify.ts';

const FLAGS = 200;
const PERSONS = 2_000;
const PROBE_FLAG = 'propagation-probe';
const EVENTS_PER_BATCH = 100;
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const AUTOCANNON_CLI = path.join(REPO_ROOT, 'node_modules', 'autocannon', 'autocannon.js');

interface FlagsRun extends Measurement {
  serverCpuMsPerRequest: number;
  /** Share of the machine (% of all cores) A and the ingestion load generator used during B's window. */
  aPercent: number | null;
  ingestionLoadPercent: number | null;
  cpu: CpuShare | null;
  /** Events/s A stored during the run (null: A idle). */
  ingestedEventsPerSecond: number | null;
}

interface Propagation {
  changes: number;
  /** ms from C's answer to the node's first answer with the new value. */
  a: { p50: number; p99: number; max: number };
  b: { p50: number; p99: number; max: number };
  /** The fastest poll round trip seen (a floor under every figure). */
  pollRoundTripMs: number;
}

/** Events stored so far (committed rows: a 200 from /batch/ means they are in the table). */
async function countEvents(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>('SELECT count(*) AS count FROM events');
    return Number(rows[0].count);
  } finally {
    await client.end();
  }
}

const round = (value: number) => Math.round(value * 100) / 100;

function percentiles(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted[sorted.length - 1]) };
}

async function seed(target: BellwetherTarget, token: string, persons: Person[]): Promise<number> {
  for (const flag of seedFlags(FLAGS)) {
    await expectStatus(201, 'POST', `${target.baseUrl}/api/projects/1/feature_flags/`, target.headers, JSON.stringify(posthogCreateBody(flag)));
  }
  const probeFlag = await expectStatus(
    201,
    'POST',
    `${target.baseUrl}/api/projects/1/feature_flags/`,
    target.headers,
    JSON.stringify({ key: PROBE_FLAG, name: 'propagation probe', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } }),
  );
  await identifyPeople(target.baseUrl, token, persons);
  return (probeFlag.body as { id: number }).id;
}

/** A batch of `$feature_flag_called` events as posthog-node sends them (no uuids: every replay stores new rows). */
function flagCalledBatch(token: string, persons: Person[]): string {
  const flags = seedFlags(FLAGS);
  const batch = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => {
    const flag = flags[(i * 7) % flags.length];
    const person = persons[(i * 13) % persons.length];
    return {
      event: '$feature_flag_called',
      distinct_id: person.distinctId,
      properties: { $feature_flag: flag.key, $feature_flag_response: flag.variants[0]?.key ?? true, locally_evaluated: false, $lib: 'posthog-node' },
    };
  });
  return JSON.stringify({ api_key: token, batch });
}

interface Ingestion {
  pid: number;
  /** Resolves with the 2xx answers once the load generator exits. */
  done: Promise<{ ok: number; non2xx: number; errors: number; seconds: number }>;
  stop(): void;
}

/** autocannon in a process of its own (optionally pinned), posting the same batch to A for `seconds`. */
function startIngestion(node: NodeProcess, body: string, seconds: number, connections: number, cpus: string | null, directory: string): Ingestion {
  const file = path.join(directory, 'batch.json');
  writeFileSync(file, body);
  const args = [AUTOCANNON_CLI, '-m', 'POST', '-H', 'content-type=application/json', '-i', file, '-c', String(connections), '-d', String(seconds), '-j', `${node.baseUrl}/batch/`];
  const [command, commandArgs] = pinned(cpus, process.execPath, args);
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let stopped = false;
  const done = new Promise<{ ok: number; non2xx: number; errors: number; seconds: number }>((resolve, reject) => {
    child.once('exit', () => {
      if (stopped) return resolve({ ok: Number.NaN, non2xx: 0, errors: 0, seconds: Number.NaN }); // stopped early: no summary
      try {
        const result = JSON.parse(output) as { '2xx': number; non2xx: number; errors: number; duration: number };
        resolve({ ok: result['2xx'], non2xx: result.non2xx, errors: result.errors, seconds: result.duration });
      } catch {
        reject(new Error(`the ingestion load generator ended without a result: ${output.slice(0, 300)}`));
      }
    });
  });
  return {
    pid: child.pid ?? -1,
    done,
    stop: () => {
      stopped = true;
      child.kill('SIGTERM');
    },
  };
}

function evaluation(token: string, persons: Person[]): OperationPlan {
  const bodies = persons.map((person) => JSON.stringify({ token, distinct_id: person.distinctId, person_properties: person.properties }));
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/flags?v=2', body: bodies[index++ % bodies.length] }),
    check: (body) => (Object.keys((body as { flags?: object } | null)?.flags ?? {}).length === FLAGS + 1 ? null : `expected ${FLAGS + 1} flags`),
    rejectBody: (body) => (body.includes('"errorsWhileComputingFlags":false') ? null : 'errorsWhileComputingFlags is not false'),
  };
}

/** Share of the machine (% of all cores) each pid used between the two readings. */
function shares(pids: number[]): () => number[] {
  const start = performance.now();
  const before = pids.map((pid) => processCpuSeconds(pid));
  return () => {
    const cores = os.cpus().length;
    const seconds = (performance.now() - start) / 1000;
    return pids.map((pid, i) => round((100 * (processCpuSeconds(pid) - before[i])) / (seconds * cores)));
  };
}

async function measureB(
  b: NodeProcess,
  others: { a: number; ingestion: number | null },
  plan: OperationPlan,
  settings: ReturnType<typeof measureSettingsOf>,
  label: string,
  log: Log,
): Promise<Omit<FlagsRun, 'ingestedEventsPerSecond'>> {
  const endWatch = watchCpu(b);
  const before = processCpuSeconds(b.pid);
  const endShares = shares(others.ingestion === null ? [others.a] : [others.a, others.ingestion]);
  const measurement = await runLoad(b, plan, settings, label);
  const serverCpuMsPerRequest = round(((processCpuSeconds(b.pid) - before) * 1000) / measurement.totalRequests);
  const [aPercent, ingestionLoadPercent = null] = endShares();
  const cpu = endWatch();
  log(
    `${label}: ${measurement.requestsPerSecond} req/s, p50 ${measurement.latencyMs.p50} ms, p99 ${measurement.latencyMs.p99} ms, B ${serverCpuMsPerRequest} CPU ms/request ` +
      `(cores: ${describeCpu(cpu)}; of which A ${aPercent}%, ingestion load generator ${ingestionLoadPercent ?? '-'}%)`,
  );
  return { ...measurement, serverCpuMsPerRequest, cpu, aPercent, ingestionLoadPercent };
}

/** Until the node answers `enabled` for the probe flag; the time from `since` in ms, and the fastest round trip. */
async function pollUntil(node: NodeProcess, body: string, enabled: boolean, since: number, timeoutMs: number): Promise<{ ms: number; fastest: number }> {
  const wanted = `"enabled":${enabled}`;
  let fastest = Number.POSITIVE_INFINITY;
  for (;;) {
    const sent = performance.now();
    const answer = await request('POST', `${node.baseUrl}/flags?v=2`, {}, body);
    const now = performance.now();
    fastest = Math.min(fastest, now - sent);
    if (answer.status !== 200) throw new Error(`${node.name} answered ${answer.status} while polling: ${answer.text.slice(0, 300)}`);
    if (answer.text.includes(wanted)) return { ms: now - since, fastest };
    if (now - since > timeoutMs) throw new Error(`${node.name} did not show the change within ${timeoutMs} ms`);
  }
}

async function measurePropagation(c: NodeProcess, a: NodeProcess, b: NodeProcess, token: string, probeId: number, changes: number): Promise<Propagation> {
  const pollBody = JSON.stringify({ token, distinct_id: 'propagation-poller', flag_keys_to_evaluate: [PROBE_FLAG] });
  const toA: number[] = [];
  const toB: number[] = [];
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < changes; i++) {
    const enabled = i % 2 === 0;
    const body = JSON.stringify({ filters: { groups: [{ properties: [], rollout_percentage: enabled ? 100 : 0 }] } });
    await expectStatus(200, 'PATCH', `${c.baseUrl}/api/projects/1/feature_flags/${probeId}/`, c.headers, body);
    const since = performance.now();
    const [seenByA, seenByB] = await Promise.all([pollUntil(a, pollBody, enabled, since, 30_000), pollUntil(b, pollBody, enabled, since, 30_000)]);
    toA.push(seenByA.ms);
    toB.push(seenByB.ms);
    fastest = Math.min(fastest, seenByA.fastest, seenByB.fastest);
  }
  return { changes, a: percentiles(toA), b: percentiles(toB), pollRoundTripMs: round(fastest) };
}

export const threeProcessScenario: Scenario = {
  name: 'three-process',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const changes = Math.max(1, Math.round(Number(process.env.BENCH_PROPAGATION_CHANGES ?? 100)));
    const ingestCpus = process.env.BENCH_INGEST_CPUS?.trim() || null;
    const loadgenCpus = process.env.BENCH_LOADGEN_CPUS?.trim() || null;
    const persons = people(PERSONS);
    const loadAtStart = os.loadavg().map((value) => round(value));
    const directory = mkdtempSync(path.join(os.tmpdir(), 'bench-three-process-'));
    const a = await startBellwether(config.adminDatabaseUrl);
    const nodes: NodeProcess[] = [];
    try {
      const token = await projectToken(a);
      const probeId = await seed(a, token, persons);
      const b = await startAnotherNode(a, 'B');
      nodes.push(b);
      const c = await startAnotherNode(a, 'C');
      nodes.push(c);
      const nodeA: NodeProcess = { name: 'A', baseUrl: a.baseUrl, pid: a.pid, databaseName: a.databaseName, headers: a.headers, stop: a.stop };
      if (loadgenCpus) pinProcess(process.pid, loadgenCpus);
      const plan = evaluation(token, persons);
      await probe(b, plan, 'B POST /flags?v=2');
      await runLoad(b, plan, { ...settings, durationSeconds: settings.warmupSeconds }, 'B /flags (warm-up)');
      const idle = { ...(await measureB(b, { a: a.pid, ingestion: null }, plan, settings, 'B /flags?v=2, A idle', log)), ingestedEventsPerSecond: null };

      // B under load while A ingests: A's load runs from before B's window to after it.
      const batch = flagCalledBatch(token, persons);
      const ingestSeconds = Math.ceil(settings.warmupSeconds + settings.durationSeconds + 2);
      const ingestion = startIngestion(nodeA, batch, ingestSeconds, config.ingestConnections, ingestCpus, directory);
      await sleep(settings.warmupSeconds * 1000);
      const busyRun = await measureB(b, { a: a.pid, ingestion: ingestion.pid }, plan, settings, 'B /flags?v=2, A ingesting', log);
      const ingested = await ingestion.done;
      if (ingested.non2xx > 0 || ingested.errors > 0) throw new Error(`ingestion into A: ${ingested.non2xx} non-2xx answers, ${ingested.errors} errors`);
      const busy: FlagsRun = { ...busyRun, ingestedEventsPerSecond: Math.round((ingested.ok * EVENTS_PER_BATCH) / ingested.seconds) };
      log(`A stored ${busy.ingestedEventsPerSecond} $feature_flag_called events/s meanwhile`);

      // Propagation of flag changes made through C, while A ingests (B without load: its answers are the notices' speed, not a queue).
      const propagationIngestion = startIngestion(nodeA, batch, 3600, config.ingestConnections, ingestCpus, directory);
      let propagation: Propagation;
      let eventsPerSecond: number;
      // B's CPU while it answers only the polls: what A's ingestion makes B do (change notices, re-reads).
      let bPercentWhilePolled: number;
      let aPercentWhilePolled: number;
      try {
        await sleep(settings.warmupSeconds * 1000);
        const before = { events: await countEvents(a.databaseUrl), at: performance.now() };
        const endShares = shares([b.pid, a.pid]);
        propagation = await measurePropagation(c, nodeA, b, token, probeId, changes);
        [bPercentWhilePolled, aPercentWhilePolled] = endShares();
        eventsPerSecond = Math.round(((await countEvents(a.databaseUrl)) - before.events) / ((performance.now() - before.at) / 1000));
      } finally {
        propagationIngestion.stop();
      }
      await propagationIngestion.done;
      log(
        `propagation through C (${changes} changes, A ingesting ${eventsPerSecond} events/s): ` +
          `A p50 ${propagation.a.p50} / p99 ${propagation.a.p99} ms, B p50 ${propagation.b.p50} / p99 ${propagation.b.p99} ms (poll round trip ≥ ${propagation.pollRoundTripMs} ms); ` +
          `meanwhile B used ${bPercentWhilePolled}% and A ${aPercentWhilePolled}% of the machine`,
      );

      const ratio = busy.requestsPerSecond / idle.requestsPerSecond;
      const worstP99 = Math.max(propagation.a.p99, propagation.b.p99);
      const loadAtEnd = os.loadavg().map((value) => round(value));
      const aims = [
        { aim: "B's /flags throughput during A's ingestion within 10 % of idle", pass: ratio >= 0.9, actual: `${ratio.toFixed(2)}×` },
        { aim: 'a flag change reaches A and B with p99 < 250 ms during the ingestion', pass: worstP99 < 250, actual: `${worstP99} ms` },
      ];
      const report = [
        `three-process: A ingests $feature_flag_called, B serves /flags?v=2 (${FLAGS + 1} flags, ${settings.connections} connections, ${settings.durationSeconds} s), C takes flag changes; one database. ` +
          `Load average ${loadAtStart.join(' ')} at start, ${loadAtEnd.join(' ')} at end. Pinned: ingestion ${ingestCpus ?? 'no'}, this process ${loadgenCpus ?? 'no'}.`,
        table([
          ['B /flags?v=2', 'req/s', 'p50 / p99', 'B CPU ms/request', 'A events/s', 'A / its load generator', 'cores'],
          ['A idle', `${Math.round(idle.requestsPerSecond)}`, `${idle.latencyMs.p50} / ${idle.latencyMs.p99} ms`, `${idle.serverCpuMsPerRequest}`, '-', `${idle.aPercent}% / -`, describeCpu(idle.cpu)],
          [
            'A ingesting',
            `${Math.round(busy.requestsPerSecond)}`,
            `${busy.latencyMs.p50} / ${busy.latencyMs.p99} ms`,
            `${busy.serverCpuMsPerRequest}`,
            `${busy.ingestedEventsPerSecond}`,
            `${busy.aPercent}% / ${busy.ingestionLoadPercent}%`,
            describeCpu(busy.cpu),
          ],
        ]),
        table([
          ['flag change through C seen by', 'p50', 'p99', 'max'],
          [`A (ingesting ${eventsPerSecond} events/s)`, `${propagation.a.p50} ms`, `${propagation.a.p99} ms`, `${propagation.a.max} ms`],
          ['B', `${propagation.b.p50} ms`, `${propagation.b.p99} ms`, `${propagation.b.max} ms`],
        ]),
        `${changes} changes; each figure includes one poll round trip (≥ ${propagation.pollRoundTripMs} ms). While polled only, B used ${bPercentWhilePolled}% of the machine (A ${aPercentWhilePolled}%).`,
        `"cores": B, this process and every backend of the shared database count as ours; A and its load generator are in "other" (their shares in the A column). B's CPU per request idle vs ingesting tells whether ingestion elsewhere costs B work, whatever the cores left.`,
        `Aims:\n${aims.map((aim) => `  ${aim.pass ? 'PASS' : 'MISS'}  ${aim.aim}: ${aim.actual}`).join('\n')}`,
      ].join('\n');
      return {
        file: 'three-process',
        settings: { flags: FLAGS + 1, persons: PERSONS, changes, ingestConnections: config.ingestConnections, ingestCpus, loadgenCpus, ...settings },
        report,
        data: { loadAverage: { start: loadAtStart, end: loadAtEnd }, idle, busy, propagation: { ...propagation, ingestedEventsPerSecond: eventsPerSecond, bPercentWhilePolled, aPercentWhilePolled }, aims },
      };
    } finally {
      if (loadgenCpus) pinProcess(process.pid, `0-${os.cpus().length - 1}`); // the next scenario's servers get every core
      for (const node of nodes.reverse()) await node.stop();
      await a.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  },
};
