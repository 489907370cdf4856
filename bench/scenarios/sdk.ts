/**
 * The SDK endpoints under load (the flag-evaluation issue):
 * - pairs, Bellwether beside Unleash 7.5.1 with the same flags (BENCH_SEED_FLAGS, 200) and the
 *   same autocannon settings: the definitions local evaluation polls (`GET /flags/definitions`
 *   vs `GET /api/client/features`) and server-side evaluation for one person (`POST /flags?v=2`
 *   vs `GET /api/frontend`), a different person per request;
 * - a scale curve, Bellwether only: both endpoints with BENCH_SDK_SCALE flags in the project
 *   (seeded with SQL, then the server restarted so its caches start from the table), and
 *   `/flags?v=2` at BENCH_SDK_HIGH_CONNECTIONS connections with 1 000 flags (p99 aim).
 */
import pg from 'pg';
import type { BenchConfig } from '../lib/config.ts';
import { describeCpu, watchCpu, type CpuShare } from '../lib/cpu-monitor.ts';
import { expectStatus, request } from '../lib/http.ts';
import { measureSettingsOf, probe, runOperation, untilUndisturbed, type MeasuredTarget, type MeasureSettings, type OperationResult } from '../lib/measure.ts';
import { runLoad } from '../lib/autocannon.ts';
import { describePgWaits, samplePgWaits, type PgWaits } from '../lib/pg-waits.ts';
import { Random } from '../lib/random.ts';
import { table, type Aim } from '../lib/report.ts';
import { startUnleash, type UnleashTarget } from '../peers/unleash.ts';
import { projectToken, startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';
import { replaceFlagsWithSql } from './flags-sql.ts';
import { people, posthogCreateBody, posthogFilters, seedFlags, unleashStrategies, type Person, type SeedFlag } from './sdk-flags.ts';
import { identifyPeople } from '../lib/identify.ts';

const PROJECT = 1;
const UNLEASH_FEATURES = '/api/admin/projects/default/features';
/** Persons stored in Bellwether (through `/batch/`, `$identify` with `$set`) before the load. */
const STORED_PERSONS = 20_000;
/** Distinct ids the evaluation requests ask about: the stored persons and 5 000 never seen (20 %). */
const DISTINCT_IDS = 25_000;
const AIM_RATIO = 5;
const AIM_P99_MS = 10;
/** The flag count of the p99 aim. */
const AIM_FLAGS = 1000;

type Endpoint = 'definitions' | 'evaluation';

/** One measurement with what it was: endpoint, server, flags, connections. */
interface Run {
  endpoint: Endpoint;
  server: 'Bellwether' | 'Unleash';
  request: string;
  flags: number;
  connections: number;
  result: OperationResult & { pgWaits?: PgWaits | null };
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const round2 = (value: number) => Math.round(value * 100) / 100;

/** The same JSON whatever the key order (jsonb keeps its own). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The persons as evaluation requests ask about them, in a shuffled order (the same each run). */
function requestPeople(): Person[] {
  const everyone = people(DISTINCT_IDS);
  const random = new Random(31);
  for (let i = everyone.length - 1; i > 0; i -= 1) {
    const j = random.int(i + 1);
    [everyone[i], everyone[j]] = [everyone[j], everyone[i]];
  }
  return everyone;
}

// ---------------------------------------------------------------------------------------------
// Seeding

/**
 * Through the management API, one flag at a time; then the stored filters must be exactly the
 * generator's (key order aside), so that the SQL seed of the scale curve stores what the API would.
 */
async function seedBellwetherFlags(target: BellwetherTarget, flags: SeedFlag[]): Promise<void> {
  for (const flag of flags) {
    await expectStatus(201, 'POST', `${target.baseUrl}/api/projects/${PROJECT}/feature_flags/`, target.headers, JSON.stringify(posthogCreateBody(flag)));
  }
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string; filters: unknown; active: boolean }>(
      'SELECT key, filters, active FROM feature_flags WHERE project_id = $1 AND NOT deleted',
      [PROJECT],
    );
    const stored = new Map(rows.map((row) => [row.key, row]));
    if (rows.length !== flags.length) throw new Error(`${rows.length} flags stored, ${flags.length} created`);
    for (const flag of flags) {
      const row = stored.get(flag.key);
      if (!row || row.active !== flag.active || canonical(row.filters) !== canonical(posthogFilters(flag))) {
        throw new Error(`flag ${flag.key} is stored as ${JSON.stringify(row)}, not as ${JSON.stringify(posthogFilters(flag))}`);
      }
    }
  } finally {
    await client.end();
  }
}

/** The people identified, then checked stored. */
async function storePersons(target: BellwetherTarget, token: string, persons: Person[]): Promise<void> {
  await identifyPeople(target.baseUrl, token, persons);
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM person_distinct_ids WHERE project_id = $1', [PROJECT]);
    if (rows[0].n !== persons.length) throw new Error(`${rows[0].n} persons stored, ${persons.length} identified`);
  } finally {
    await client.end();
  }
}

/** Create, one flexibleRollout strategy per condition set, enable in `development` (active flags). */
async function seedUnleashFlags(target: UnleashTarget, flags: SeedFlag[]): Promise<void> {
  for (const flag of flags) {
    const path = `${target.baseUrl}${UNLEASH_FEATURES}/${encodeURIComponent(flag.key)}`;
    await expectStatus(201, 'POST', `${target.baseUrl}${UNLEASH_FEATURES}`, target.headers, JSON.stringify({ name: flag.key, type: 'release', description: flag.name }));
    for (const strategy of unleashStrategies(flag)) {
      await expectStatus(200, 'POST', `${path}/environments/development/strategies`, target.headers, JSON.stringify(strategy));
    }
    if (flag.active) await expectStatus(200, 'POST', `${path}/environments/development/on`, target.headers);
  }
}

/** A frontend token for `development` (`POST /api/admin/api-tokens`). */
async function unleashFrontendToken(target: UnleashTarget): Promise<string> {
  const created = await expectStatus(
    201,
    'POST',
    `${target.baseUrl}/api/admin/api-tokens`,
    target.headers,
    JSON.stringify({ tokenName: 'bench-frontend', type: 'frontend', environment: 'development', projects: ['default'] }),
  );
  const secret = (created.body as { secret?: unknown }).secret;
  if (typeof secret !== 'string') throw new Error(`Unleash created no frontend token: ${created.text.slice(0, 300)}`);
  return secret;
}

/**
 * Unleash serves the SDKs from caches refreshed when its revision id moves (a scheduled check):
 * wait until `/api/client/features` holds every flag and the frontend API shows the last one
 * (always on, seeded last).
 */
async function untilUnleashServesAll(target: UnleashTarget, frontendToken: string, flags: SeedFlag[]): Promise<void> {
  const canary = flags[flags.length - 1].key;
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    const client = await request('GET', `${target.baseUrl}/api/client/features`, { authorization: target.backendToken });
    const features = (client.body as { features?: unknown[] } | null)?.features;
    const frontend = await request('GET', `${target.baseUrl}/api/frontend?userId=user-0`, { authorization: frontendToken });
    const toggles = (frontend.body as { toggles?: Array<{ name: string }> } | null)?.toggles;
    if (features?.length === flags.length && toggles?.some((toggle) => toggle.name === canary)) return;
    last = `client features ${client.status} with ${features?.length ?? '?'} flags, frontend ${frontend.status} with ${toggles?.length ?? '?'}`;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`Unleash did not serve the ${flags.length} flags within 60 s (${last})`);
}

// ---------------------------------------------------------------------------------------------
// The plans

function ourDefinitions(token: string, count: number): OperationPlan {
  return {
    method: 'GET',
    next: () => ({ path: `/flags/definitions?token=${token}` }),
    check: (body) => {
      const flags = (body as { flags?: unknown[] } | null)?.flags;
      if (!Array.isArray(flags)) return 'the answer has no flags array';
      return flags.length === count ? null : `the definitions hold ${flags.length} flags, expected ${count}`;
    },
  };
}

function ourEvaluation(token: string, persons: Person[], count: number): OperationPlan {
  const bodies = persons.map((person) => JSON.stringify({ token, distinct_id: person.distinctId, person_properties: person.properties }));
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/flags?v=2', body: bodies[index++ % bodies.length] }),
    check: (body) => {
      const answer = body as { flags?: Record<string, unknown>; errorsWhileComputingFlags?: unknown } | null;
      if (!answer?.flags || typeof answer.flags !== 'object') return 'the answer has no flags map';
      if (answer.errorsWhileComputingFlags !== false) return 'errorsWhileComputingFlags is not false';
      const n = Object.keys(answer.flags).length;
      return n === count ? null : `the answer holds ${n} flags, expected ${count}`;
    },
    // A person who could not be read is still a 200, evaluated with the sent properties only.
    rejectBody: (body) => (body.includes('"errorsWhileComputingFlags":false') ? null : 'errorsWhileComputingFlags is not false'),
  };
}

function unleashClientFeatures(count: number): OperationPlan {
  return {
    method: 'GET',
    next: () => ({ path: '/api/client/features' }),
    check: (body) => {
      const features = (body as { features?: unknown[] } | null)?.features;
      if (!Array.isArray(features)) return 'the answer has no features array';
      return features.length === count ? null : `the answer holds ${features.length} features, expected ${count}`;
    },
  };
}

function unleashFrontend(persons: Person[], canary: string): OperationPlan {
  const paths = persons.map((person) => {
    const query = new URLSearchParams({ userId: person.distinctId, ...person.properties });
    return `/api/frontend?${query.toString()}`;
  });
  let index = 0;
  return {
    method: 'GET',
    next: () => ({ path: paths[index++ % paths.length] }),
    check: (body) => {
      const toggles = (body as { toggles?: Array<{ name: string }> } | null)?.toggles;
      if (!Array.isArray(toggles)) return 'the answer has no toggles array';
      return toggles.some((toggle) => toggle.name === canary) ? null : `flag ${canary} (on for everyone) is missing`;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** Probe, warm-up, then the measurement with pg_stat_activity sampled (repeated while disturbed). */
async function runWithPgWaits(
  target: MeasuredTarget,
  databaseUrl: string,
  plan: OperationPlan,
  settings: MeasureSettings,
  operation: string,
  log: Log,
): Promise<OperationResult & { pgWaits: PgWaits | null }> {
  await probe(target, plan, operation);
  const label = `${target.name} ${operation}`;
  const warmUp = () => runLoad(target, plan, { connections: settings.connections, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
  await warmUp();
  const result = await untilUndisturbed(target, settings, label, log, async (isRetry) => {
    if (isRetry) await warmUp();
    const endWaits = await samplePgWaits(databaseUrl);
    try {
      const endWatch = watchCpu(target);
      const measurement = await runLoad(target, plan, settings, label);
      return { ...measurement, cpu: endWatch() as CpuShare | null, pgWaits: await endWaits() };
    } finally {
      await endWaits();
    }
  });
  log(
    `${label}: ${result.requestsPerSecond} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms ` +
      `(${result.totalRequests} requests, ${result.bytesPerResponse} B each; cores: ${describeCpu(result.cpu)}; ` +
      `its PostgreSQL connections: ${describePgWaits(result.pgWaits)})${result.disturbed ? ' DISTURBED' : ''}`,
  );
  return result;
}

/** What one request cost, in core-ms, and what the queue looked like (Little's law). */
function costOf(run: Run): Record<string, number> | null {
  const r = run.result;
  if (!r.cpu || r.totalRequests === 0) return null;
  const coreMs = (percent: number) => round2(((percent / 100) * r.cpu!.cores * r.cpu!.seconds * 1000) / r.totalRequests);
  const serverSide = r.cpu.serverPercent + r.cpu.postgresPercent + r.cpu.postgresSharedPercent;
  return {
    serverCoreMs: coreMs(r.cpu.serverPercent),
    /** Cores the server process used (one Node process: its event loop runs on one). */
    serverCores: round2((r.cpu.serverPercent / 100) * r.cpu.cores),
    postgresCoreMs: coreMs(r.cpu.postgresPercent + r.cpu.postgresSharedPercent),
    benchCoreMs: coreMs(r.cpu.benchPercent),
    /** Requests/s server + PostgreSQL would carry with every core at this cost. */
    wholeMachineRequestsPerSecond: Math.round((r.requestsPerSecond * 100) / Math.max(serverSide, 0.1)),
    /** Little's law: requests in flight on average (req/s × mean latency). */
    inFlight: round1((r.requestsPerSecond * r.latencyMs.mean) / 1000),
    idlePercent: round1(Math.max(0, 100 - r.cpu.machinePercent)),
  };
}

function whereTimeGoes(run: Run): string {
  const cost = costOf(run);
  const r = run.result;
  if (!cost || !r.cpu) return `${run.server} ${run.request}, ${run.flags} flags, ${run.connections} conn.: cores not watched`;
  return (
    `${run.server} ${run.request}, ${run.flags} flags, ${run.connections} conn.: per request server ${cost.serverCoreMs} core-ms, ` +
    `PostgreSQL ${cost.postgresCoreMs}, load generator ${cost.benchCoreMs}; the server used ${cost.serverCores} cores; machine ${r.cpu.machinePercent}% busy ` +
    `(idle ${cost.idlePercent}%); server + PostgreSQL alone on all ${r.cpu.cores} cores ≈ ${cost.wholeMachineRequestsPerSecond.toLocaleString('en-US')} req/s; ` +
    `Little's law ${r.requestsPerSecond} req/s × ${r.latencyMs.mean} ms = ${cost.inFlight} in flight of ${run.connections}` +
    (r.pgWaits ? `; its PostgreSQL connections: ${describePgWaits(r.pgWaits)}` : '')
  );
}

/** For each missed aim, what the measurements say about why (computed, not guessed). */
function missedAimNotes(aims: Aim[], runs: Run[], scale: Run[], connections: number, highConnections: number): string[] {
  const notes: string[] = [];
  const find = (endpoint: Endpoint, server: Run['server']) => runs.find((r) => r.endpoint === endpoint && r.server === server);
  for (const [index, endpoint] of (['definitions', 'evaluation'] as const).entries()) {
    if (aims[index].pass !== false) continue;
    const ours = find(endpoint, 'Bellwether')!;
    const theirs = find(endpoint, 'Unleash')!;
    const a = costOf(ours);
    const b = costOf(theirs);
    if (!a || !b) continue;
    const ratio = ours.result.requestsPerSecond / theirs.result.requestsPerSecond;
    notes.push(
      `${ours.request} vs ${theirs.request}: Bellwether's server spent ${a.serverCoreMs} core-ms per request (+ PostgreSQL ${a.postgresCoreMs}), ` +
        `Unleash's ${b.serverCoreMs} (+ ${b.postgresCoreMs}); each is one Node process and used ${a.serverCores} and ${b.serverCores} cores: ` +
        `the event loop is the ceiling, req/s ≈ 1000 / server core-ms. ${AIM_RATIO}× ` +
        `(${Math.round(theirs.result.requestsPerSecond * AIM_RATIO).toLocaleString('en-US')} req/s) would need about ` +
        `${round2((a.serverCoreMs * ratio) / AIM_RATIO)} server core-ms per request ` +
        `(answers: ours ${ours.result.bytesPerResponse.toLocaleString('en-US')} B, theirs ${theirs.result.bytesPerResponse.toLocaleString('en-US')} B). ` +
        `Little's law: ${a.inFlight} and ${b.inFlight} requests in flight of ${connections}: both servers always had work queued.`,
    );
  }
  const high = scale.find((r) => r.flags === AIM_FLAGS && r.connections === highConnections);
  const single = scale.find((r) => r.flags === AIM_FLAGS && r.connections === 1);
  if (aims[2].pass === false && high) {
    const cost = costOf(high);
    const needed = Math.round(highConnections / (AIM_P99_MS / 1000));
    notes.push(
      `/flags?v=2, ${AIM_FLAGS} flags, ${highConnections} connections: ${high.result.requestsPerSecond} req/s, so by Little's law each request ` +
        `spent on average ${highConnections} / ${high.result.requestsPerSecond} = ${round1((highConnections * 1000) / high.result.requestsPerSecond)} ms ` +
        `queued and served (measured mean ${high.result.latencyMs.mean} ms, ${cost?.inFlight ?? '?'} in flight): autocannon keeps ${highConnections} ` +
        `requests waiting on a server that serves one at a time. A p99 under ${AIM_P99_MS} ms at ${highConnections} connections needs at least ` +
        `${needed.toLocaleString('en-US')} req/s, about ${round2(1000 / needed)} core-ms per request on the event loop's one core; ` +
        `measured: ${cost?.serverCoreMs ?? '?'} server core-ms (+ PostgreSQL ${cost?.postgresCoreMs ?? '?'}) for an answer of ` +
        `${high.result.bytesPerResponse.toLocaleString('en-US')} B` +
        (cost ? `, ${round2((cost.serverCoreMs * 1000) / AIM_FLAGS)} core-µs per flag` : '') +
        '.' +
        (cost && high.result.cpu
          ? ` The load generator alone spent ${cost.benchCoreMs} core-ms per answer reading it: ${needed.toLocaleString('en-US')} req/s would ` +
            `take ${round1((cost.benchCoreMs * needed) / 1000)} of the machine's ${high.result.cpu.cores} cores for autocannon alone.`
          : '') +
        (single ? ` Without a queue (1 connection): p50 ${single.result.latencyMs.p50} ms, p99 ${single.result.latencyMs.p99} ms, ${single.result.requestsPerSecond} req/s.` : ''),
    );
  }
  return notes;
}

const rate = (r: OperationResult) => `${Math.round(r.requestsPerSecond).toLocaleString('en-US')}${r.disturbed ? ' *' : ''}`;
const latency = (r: OperationResult) => `${r.latencyMs.p50} / ${r.latencyMs.p99} ms`;
const cores = (r: OperationResult) =>
  r.cpu ? `${r.cpu.benchPercent}% · ${r.cpu.serverPercent}% · ${round1(r.cpu.postgresPercent + r.cpu.postgresSharedPercent)}% · ${r.cpu.foreignPercent}%` : '-';

// ---------------------------------------------------------------------------------------------

export const sdkScenario: Scenario = {
  name: 'sdk',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const pairFlags = config.seedFlags;
    log(
      `sdk: ${pairFlags} flags on each server, ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ` +
        `${settings.durationSeconds} s per measurement; scale ${config.sdkScale.join(', ')} flags; ` +
        `${config.sdkHighConnections} connections at ${AIM_FLAGS} flags${config.skipPeer ? '; Unleash skipped' : ''}`,
    );
    let ours = await startBellwether(config.adminDatabaseUrl);
    let peer: UnleashTarget | null = null;
    try {
      log(`${ours.name} is up at ${ours.baseUrl} (pid ${ours.pid}, database ${ours.databaseName})`);
      peer = config.skipPeer ? null : await startUnleash(config.adminDatabaseUrl, log);
      if (peer) log(`${peer.name} is up at ${peer.baseUrl} (pid ${peer.pid}, database ${peer.databaseName})`);

      const token = await projectToken(ours);
      const flags = seedFlags(pairFlags);
      const canary = flags[flags.length - 1].key;
      const kinds: Record<string, number> = {};
      for (const flag of flags) kinds[flag.kind] = (kinds[flag.kind] ?? 0) + 1;
      let started = performance.now();
      await seedBellwetherFlags(ours, flags);
      log(`Bellwether: ${pairFlags} flags created through the API in ${Math.round(performance.now() - started)} ms (${JSON.stringify(kinds)}); stored as generated`);
      started = performance.now();
      await storePersons(ours, token, people(STORED_PERSONS));
      log(`Bellwether: ${STORED_PERSONS} persons identified through /batch/ in ${Math.round(performance.now() - started)} ms`);
      let frontendToken = '';
      if (peer) {
        started = performance.now();
        await seedUnleashFlags(peer, flags);
        frontendToken = await unleashFrontendToken(peer);
        await untilUnleashServesAll(peer, frontendToken, flags);
        log(`Unleash: ${pairFlags} flags created, given their strategies and enabled in ${Math.round(performance.now() - started)} ms; a frontend token made`);
      }
      const persons = requestPeople();

      // --- the pairs: each endpoint on both servers in turn, who goes first alternating.
      const runs: Run[] = [];
      const pairs: Array<{ endpoint: Endpoint; sides: Array<() => Promise<Run>> }> = [
        {
          endpoint: 'definitions',
          sides: [
            async () => ({
              endpoint: 'definitions', server: 'Bellwether', request: 'GET /flags/definitions', flags: pairFlags, connections: settings.connections,
              result: await runOperation(ours, ourDefinitions(token, pairFlags), settings, 'GET /flags/definitions', log),
            }),
            ...(peer
              ? [
                  async (): Promise<Run> => ({
                    endpoint: 'definitions', server: 'Unleash', request: 'GET /api/client/features', flags: pairFlags, connections: settings.connections,
                    result: await runOperation({ ...peer!, headers: { authorization: peer!.backendToken } }, unleashClientFeatures(pairFlags), settings, 'GET /api/client/features', log),
                  }),
                ]
              : []),
          ],
        },
        {
          endpoint: 'evaluation',
          sides: [
            async () => ({
              endpoint: 'evaluation', server: 'Bellwether', request: 'POST /flags?v=2', flags: pairFlags, connections: settings.connections,
              result: await runOperation({ ...ours, headers: {} }, ourEvaluation(token, persons, pairFlags), settings, 'POST /flags?v=2', log),
            }),
            ...(peer
              ? [
                  async (): Promise<Run> => ({
                    endpoint: 'evaluation', server: 'Unleash', request: 'GET /api/frontend', flags: pairFlags, connections: settings.connections,
                    result: await runOperation({ ...peer!, headers: { authorization: frontendToken } }, unleashFrontend(persons, canary), settings, 'GET /api/frontend', log),
                  }),
                ]
              : []),
          ],
        },
      ];
      for (const [index, pair] of pairs.entries()) {
        for (const side of index % 2 === 0 ? pair.sides : [...pair.sides].reverse()) runs.push(await side());
      }
      if (peer) {
        await peer.stop();
        log('Unleash stopped, its database dropped');
        peer = null;
      }

      // --- the scale curve, Bellwether only.
      const scale: Run[] = [];
      for (const count of config.sdkScale) {
        const scaleFlags = seedFlags(count);
        started = performance.now();
        await replaceFlagsWithSql(ours.databaseUrl, scaleFlags);
        ours = await ours.restart();
        log(`Bellwether: ${count} flags inserted with SQL and the server restarted in ${Math.round(performance.now() - started)} ms (pid ${ours.pid})`);
        scale.push({
          endpoint: 'definitions', server: 'Bellwether', request: 'GET /flags/definitions', flags: count, connections: settings.connections,
          result: await runOperation(ours, ourDefinitions(token, count), settings, `GET /flags/definitions (${count} flags)`, log),
        });
        scale.push({
          endpoint: 'evaluation', server: 'Bellwether', request: 'POST /flags?v=2', flags: count, connections: settings.connections,
          result: await runOperation({ ...ours, headers: {} }, ourEvaluation(token, persons, count), settings, `POST /flags?v=2 (${count} flags)`, log),
        });
        if (count === AIM_FLAGS) {
          const evaluation = ourEvaluation(token, persons, count);
          for (const connections of [1, config.sdkHighConnections]) {
            scale.push({
              endpoint: 'evaluation', server: 'Bellwether', request: 'POST /flags?v=2', flags: count, connections,
              result: await runWithPgWaits({ ...ours, headers: {} }, ours.databaseUrl, evaluation, { ...settings, connections }, `POST /flags?v=2 (${count} flags, ${connections} conn.)`, log),
            });
          }
        }
      }
      await ours.stop();
      log('Bellwether stopped, its database dropped');

      // --- the report.
      const find = (list: Run[], endpoint: Endpoint, server: Run['server']) => list.find((r) => r.endpoint === endpoint && r.server === server) ?? null;
      const ratioOf = (endpoint: Endpoint) => {
        const a = find(runs, endpoint, 'Bellwether');
        const b = find(runs, endpoint, 'Unleash');
        return a && b ? a.result.requestsPerSecond / b.result.requestsPerSecond : null;
      };
      const high = scale.find((r) => r.flags === AIM_FLAGS && r.connections === config.sdkHighConnections) ?? null;
      const definitionsRatio = ratioOf('definitions');
      const evaluationRatio = ratioOf('evaluation');
      const aims: Aim[] = [
        {
          aim: `definitions ≥ ${AIM_RATIO}× Unleash's client features (${pairFlags} flags, ${settings.connections} conn.)`,
          pass: definitionsRatio === null ? null : definitionsRatio >= AIM_RATIO,
          actual: definitionsRatio === null ? 'peer skipped' : `${definitionsRatio.toFixed(1)}×`,
        },
        {
          aim: `/flags?v=2 ≥ ${AIM_RATIO}× Unleash's frontend API (${pairFlags} flags, ${settings.connections} conn.)`,
          pass: evaluationRatio === null ? null : evaluationRatio >= AIM_RATIO,
          actual: evaluationRatio === null ? 'peer skipped' : `${evaluationRatio.toFixed(1)}×`,
        },
        {
          aim: `/flags?v=2 p99 < ${AIM_P99_MS} ms at ${config.sdkHighConnections} connections with ${AIM_FLAGS.toLocaleString('en-US')} flags`,
          pass: high ? high.result.latencyMs.p99 < AIM_P99_MS : null,
          actual: high ? `${high.result.latencyMs.p99} ms (${Math.round(high.result.requestsPerSecond).toLocaleString('en-US')} req/s)` : `not measured (${AIM_FLAGS} not in BENCH_SDK_SCALE)`,
        },
      ];

      const pairRows = [['pair (ours vs theirs)', 'Bellwether req/s', 'Unleash req/s', 'ratio (ours/theirs)', 'Bellwether p50 / p99', 'Unleash p50 / p99', 'B/response (ours / theirs)']];
      for (const endpoint of ['definitions', 'evaluation'] as const) {
        const a = find(runs, endpoint, 'Bellwether')!;
        const b = find(runs, endpoint, 'Unleash');
        const ratio = ratioOf(endpoint);
        pairRows.push([
          `${a.request} vs ${b?.request ?? (endpoint === 'definitions' ? 'GET /api/client/features' : 'GET /api/frontend')}`,
          rate(a.result),
          b ? rate(b.result) : 'skipped',
          ratio === null ? '-' : `${ratio.toFixed(1)}×`,
          latency(a.result),
          b ? latency(b.result) : '-',
          `${a.result.bytesPerResponse.toLocaleString('en-US')} / ${b ? b.result.bytesPerResponse.toLocaleString('en-US') : '-'}`,
        ]);
      }
      const scaleRows = [['flags', 'request', 'conn.', 'req/s', 'p50 / p99', 'B/response', 'server core-ms/req', 'cores: bench · server · postgres · other']];
      for (const run of [...runs.filter((r) => r.server === 'Bellwether').map((r) => ({ ...r, note: ' (API)' })), ...scale.map((r) => ({ ...r, note: '' }))].sort(
        (a, b) => a.flags - b.flags || a.endpoint.localeCompare(b.endpoint) || a.connections - b.connections,
      )) {
        scaleRows.push([
          `${run.flags.toLocaleString('en-US')}${run.note}`,
          run.request,
          `${run.connections}`,
          rate(run.result),
          latency(run.result),
          run.result.bytesPerResponse.toLocaleString('en-US'),
          `${costOf(run)?.serverCoreMs ?? '-'}`,
          cores(run.result),
        ]);
      }
      const all = [...runs, ...scale];
      const missed = missedAimNotes(aims, runs, scale, settings.connections, config.sdkHighConnections);
      const verdict = (aim: Aim) => (aim.pass === null ? 'n/a ' : aim.pass ? 'PASS' : 'MISS');
      const report =
        `SDK endpoints: Bellwether ${config.skipPeer ? '(Unleash skipped)' : 'beside Unleash 7.5.1'}, ${pairFlags} flags each, ${settings.connections} connections, autocannon, no If-None-Match\n` +
        `${table(pairRows)}\n` +
        `Evaluation: a different person per request, over ${DISTINCT_IDS.toLocaleString('en-US')} distinct ids (${STORED_PERSONS.toLocaleString('en-US')} stored persons); ` +
        `ours answers every flag with reason and metadata, Unleash's frontend API only the flags enabled for that context.\n\n` +
        `Scale (Bellwether only; SQL-seeded flags, server restarted; "(API)": the pair's flags, created through the API)\n${table(scaleRows)}\n` +
        `Cores in % of the machine's ${all[0]?.result.cpu?.cores ?? '?'}; the load generator shares them with the servers and PostgreSQL.\n` +
        (all.some((r) => r.result.disturbed) ? '* disturbed: other work used more than the allowed share of the cores even after retries.\n' : '') +
        `\nWhere the time goes:\n${all.map((run) => `  ${whereTimeGoes(run)}`).join('\n')}\n\n` +
        `Aims:\n${aims.map((aim) => `  ${verdict(aim)}  ${aim.aim}: ${aim.actual}`).join('\n')}\n` +
        (missed.length ? `\nWhy the missed aims miss:\n${missed.map((line) => `  ${line}`).join('\n')}\n` : '');

      const describe = (run: Run) => ({ ...run, cost: costOf(run) });
      return {
        file: 'sdk',
        suffix: config.skipPeer ? 'bellwether-only' : '',
        settings: {
          ...settings,
          pairFlags,
          scale: config.sdkScale,
          highConnections: config.sdkHighConnections,
          storedPersons: STORED_PERSONS,
          distinctIds: DISTINCT_IDS,
          skipPeer: config.skipPeer,
        },
        report,
        data: {
          flagKinds: kinds,
          unleash: config.skipPeer
            ? null
            : {
                version: '7.5.1',
                notes: {
                  frontendApi:
                    'GET /api/frontend has no rate limit (express-rate-limit guards only /api/frontend/client/metrics and /client/register, ' +
                    '6000/min); every request is evaluated in memory by an embedded unleash-client per frontend token, fed by ' +
                    'GlobalFrontendApiCache (reloaded from the database when the revision id moves); answers carry Cache-Control: no-cache; ' +
                    'only the flags enabled for the context are returned.',
                  clientFeatures:
                    'GET /api/client/features is memoized per query and revision ETag (clientFeatureCaching enabled, maxAge 1 h); each ' +
                    'request still resolves the revision id (in memory) and validates the answer against its OpenAPI schema before sending.',
                  frontendContext: 'the same person properties as ours, as query parameters (email, plan, country: Unleash context properties)',
                },
              },
          pairs: runs.map(describe),
          scale: scale.map(describe),
          aims,
          missedAims: missed,
        },
      };
    } finally {
      await peer?.stop();
      await ours.stop();
    }
  },
};
