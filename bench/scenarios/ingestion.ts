import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import pg from 'pg';
import { PostHog, type PostHogOptions } from 'posthog-node';
import { LatencyRecorder, LoadError, runLoad, type Measurement } from '../lib/autocannon.ts';
import type { BenchConfig } from '../lib/config.ts';
import { describeCpu, watchCpu, type CpuShare } from '../lib/cpu-monitor.ts';
import { expectStatus } from '../lib/http.ts';
import { describePgWaits, samplePgWaits, type PgWaits } from '../lib/pg-waits.ts';
import { probe, untilUndisturbed } from '../lib/measure.ts';
import { table, type Aim } from '../lib/report.ts';
import { startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import { ingestionAgainstBaseline } from './ingestion-baseline.ts';
import type { IngestionResult, IngestionWindow } from './ingestion-window.ts';
import { EventGenerator } from './ingestion-events.ts';
import type { Log, Scenario } from './scenario.ts';

/** posthog-node's flushAt and maxBatchSize, and the size of the pre-built batches. */
const BATCH = 100;
/** Queued events per client the producer keeps topped up: one batch in flight, two ready. */
const HIGH_WATER = 3 * BATCH;
/** posthog-node's timer flush (ms): small, so that no event waits long at the end. */
const FLUSH_INTERVAL_MS = 50;
/** Distinct pre-built bodies autocannon cycles through. */
const PREBUILT_BATCHES = 200;
const AIM_EVENTS_PER_SECOND = 5000;
/** Time for batches cut off by autocannon's stop to be committed before the table is counted (ms). */
const SETTLE_MS = 500;

type FetchLike = NonNullable<PostHogOptions['fetch']>;
type QueueKey = Parameters<PostHog['getPersistedProperty']>[0];
const QUEUE = 'queue' as QueueKey;

interface IngestionSettings {
  clients: number;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  distinctIds: number;
  /** Fraction of events that are survey events of one hot survey. */
  surveyShare: number;
  maxForeignCpuPercent: number;
  retries: number;
}

async function countEvents(pool: pg.Pool): Promise<{ count: number; at: number; queryMs: number }> {
  const at = performance.now(); // the snapshot is taken when the statement starts
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM events');
  return { count: Number(rows[0].n), at, queryMs: Math.round((performance.now() - at) * 10) / 10 };
}

/** What the clients' fetch saw. */
class BatchStats {
  readonly latencies = new LatencyRecorder();
  recording = false;
  windowBatches = 0;
  non2xx = 0;
  socketErrors = 0;
  unexpectedRequests = 0;
  statusCodes: Record<string, number> = {};
  firstError: string | null = null;

  /** posthog-node's `fetch` option: the global fetch, timed. */
  fetch(): FetchLike {
    return async (url, options) => {
      if (!new URL(url).pathname.startsWith('/batch')) {
        this.unexpectedRequests += 1;
        this.firstError ??= `posthog-node requested ${url}, expected /batch/`;
      }
      const started = performance.now();
      let response: Response;
      try {
        response = await fetch(url, options as RequestInit);
      } catch (error) {
        this.socketErrors += 1;
        this.firstError ??= `request failed: ${(error as Error).message}`;
        throw error;
      }
      const ms = performance.now() - started;
      this.statusCodes[response.status] = (this.statusCodes[response.status] ?? 0) + 1;
      if (response.status >= 200 && response.status <= 299) {
        if (this.recording) {
          this.windowBatches += 1;
          this.latencies.record(ms);
        }
      } else {
        this.non2xx += 1;
        this.firstError ??= `HTTP ${response.status} ${(await response.clone().text()).slice(0, 500)}`;
      }
      return response;
    };
  }
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * posthog-node itself: `clients` PostHog instances in this process (flushAt = maxBatchSize =
 * 100, gzip, one request in flight per client as posthog-node does), each kept topped up with
 * HIGH_WATER queued events so that it always has a full batch ready when its previous one is
 * answered. The window counts the rows that appeared in `events`; afterwards every client is
 * shut down (flushing what it holds) and every captured event must be in the table.
 */
async function posthogNodeAttempt(
  target: BellwetherTarget,
  token: string,
  pool: pg.Pool,
  settings: IngestionSettings,
  seed: number,
  log: Log,
): Promise<IngestionWindow & { details: Record<string, unknown> }> {
  const stats = new BatchStats();
  const clientErrors: string[] = [];
  const clients = Array.from({ length: settings.clients }, () => {
    const client = new PostHog(token, {
      host: target.baseUrl,
      flushAt: BATCH,
      maxBatchSize: BATCH,
      flushInterval: FLUSH_INTERVAL_MS,
      maxQueueSize: 10_000,
      fetch: stats.fetch(),
    });
    client.on('error', (error: unknown) => clientErrors.push(error instanceof Error ? error.message : String(error)));
    return client;
  });
  const generator = new EventGenerator(settings.distinctIds, seed, settings.surveyShare);
  const before = await countEvents(pool);
  let captured = 0;
  let running = true;
  let maxQueued = 0;
  const producer = (async () => {
    while (running) {
      for (const client of clients) {
        // Read after the pause: posthog-node enqueues a captured event a few microtasks later.
        let queued = (client.getPersistedProperty(QUEUE) as unknown[] | undefined)?.length ?? 0;
        maxQueued = Math.max(maxQueued, queued);
        while (queued < HIGH_WATER) {
          client.capture(generator.next());
          queued += 1;
          captured += 1;
        }
      }
      await sleep(2);
    }
  })();

  let endWaits: (() => Promise<PgWaits>) | null = null;
  try {
    await sleep(settings.warmupSeconds * 1000);
    endWaits = await samplePgWaits(target.databaseUrl);
    const start = await countEvents(pool);
    const endWatch = watchCpu(target);
    stats.recording = true;
    await sleep(settings.durationSeconds * 1000);
    const end = await countEvents(pool);
    const cpu = endWatch();
    stats.recording = false;
    const pgWaits = await endWaits();
    running = false;
    await producer;
    await Promise.all(clients.map((client) => client.shutdown(30_000)));
    const after = await countEvents(pool);

    const lost = captured - (after.count - before.count);
    const errors = stats.non2xx + stats.socketErrors + stats.unexpectedRequests + clientErrors.length + Math.abs(lost);
    if (errors > 0) {
      throw new LoadError(
        `posthog-node ingestion: ${stats.non2xx} non-2xx answers, ${stats.socketErrors} failed requests, ` +
          `${clientErrors.length} client errors; ${captured} events captured, ${after.count - before.count} stored` +
          `; status codes ${JSON.stringify(stats.statusCodes)}` +
          (stats.firstError ? `\n  first error: ${stats.firstError}` : '') +
          (clientErrors[0] ? `\n  first client error: ${clientErrors[0]}` : '') +
          `\n  Bellwether's last output:\n${target.output()}`,
      );
    }
    const seconds = (end.at - start.at) / 1000;
    const stored = end.count - start.count;
    const latency = stats.latencies.count > 0 ? stats.latencies.summary() : null;
    const batchesPerSecond = stats.windowBatches / seconds;
    log(
      `posthog-node: ${captured} events captured, all stored; the window: ${stored} events in ${round1(seconds)} s ` +
        `(largest queue seen ${maxQueued})`,
    );
    return {
      eventsPerSecond: Math.round(stored / seconds),
      eventsStored: stored,
      seconds: round1(seconds),
      batchesPerSecond: round1(batchesPerSecond),
      meanEventsPerBatch: stats.windowBatches ? round1(stored / stats.windowBatches) : 0,
      batchLatencyMs: latency,
      errors,
      inFlight: latency ? round1((batchesPerSecond * latency.mean) / 1000) : null,
      cpu,
      pgWaits,
      eventsInTableAtStart: start.count,
      countQueryMs: [start.queryMs, end.queryMs],
      details: {
        eventsCaptured: captured,
        eventsStoredDuringAttempt: after.count - before.count,
        statusCodes: stats.statusCodes,
        largestClientQueue: maxQueued,
      },
    };
  } finally {
    await endWaits?.(); // idempotent
    running = false;
    await producer.catch(() => undefined);
    // Idempotent: a client already shut down returns at once; after a failure, do not wait long.
    await Promise.all(clients.map((client) => client.shutdown(1000).catch(() => undefined)));
  }
}

/**
 * Bodies exactly as posthog-node sends them (its own client, with a fetch that keeps the body
 * instead of sending it), then with the events' uuids removed, gzipped again: replayed bodies
 * then store new rows each time (the server gives each event a UUID v7 and still runs its
 * duplicate check on it, as for posthog-node's own v7 uuids).
 */
async function prebuiltBatches(token: string, baseUrl: string, distinctIds: number, surveyShare: number): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  const capture: FetchLike = async (_url, options) => {
    const body = options.body;
    if (!(body instanceof Uint8Array)) throw new Error('posthog-node sent an uncompressed body; expected gzip');
    const envelope = JSON.parse(gunzipSync(body).toString('utf8')) as { batch: Array<Record<string, unknown>> };
    for (const event of envelope.batch) delete event.uuid;
    bodies.push(gzipSync(JSON.stringify(envelope)));
    return new Response('{"status":1}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const client = new PostHog(token, {
    host: baseUrl,
    flushAt: BATCH,
    maxBatchSize: BATCH,
    flushInterval: 0,
    maxQueueSize: PREBUILT_BATCHES * BATCH,
    fetch: capture,
  });
  const generator = new EventGenerator(distinctIds, 7, surveyShare);
  for (let i = 0; i < PREBUILT_BATCHES * BATCH; i += 1) client.capture(generator.next());
  await client.shutdown(30_000);
  const full = bodies.filter((body) => (JSON.parse(gunzipSync(body).toString('utf8')) as { batch: unknown[] }).batch.length === BATCH);
  if (full.length < PREBUILT_BATCHES / 2) throw new Error(`only ${full.length} of ${bodies.length} pre-built batches hold ${BATCH} events`);
  return full;
}

/** autocannon posting the pre-built gzipped batches of 100: the server's ceiling without client overhead. */
async function autocannonVariant(
  target: BellwetherTarget,
  token: string,
  pool: pg.Pool,
  settings: IngestionSettings,
  log: Log,
): Promise<IngestionResult> {
  const bodies = await prebuiltBatches(token, target.baseUrl, settings.distinctIds, settings.surveyShare);
  const meanBytes = Math.round(bodies.reduce((sum, body) => sum + body.length, 0) / bodies.length);
  log(`autocannon: ${bodies.length} pre-built gzipped batches of ${BATCH}, ${meanBytes} B each on average`);
  let index = 0;
  const plan: OperationPlan = {
    method: 'POST',
    headers: { 'content-encoding': 'gzip' },
    next: () => ({ path: '/batch/', body: bodies[index++ % bodies.length] }),
    check: (body) => ((body as { status?: unknown } | null)?.status === 1 ? null : 'the answer is not {"status": 1}'),
  };
  const loadTarget = { baseUrl: target.baseUrl, headers: {} };
  const label = 'autocannon /batch/';
  await probe({ ...target, headers: {} }, plan, label);
  await runLoad(loadTarget, plan, { connections: settings.connections, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
  return untilUndisturbed(target, settings, label, log, async (isRetry) => {
    if (isRetry) {
      await runLoad(loadTarget, plan, { connections: settings.connections, durationSeconds: settings.warmupSeconds }, `${label} (warm-up)`);
    }
    // autocannon stops by closing its sockets: the batches then in flight are still stored.
    // Let them land before counting, so that the window holds only its own requests.
    await sleep(SETTLE_MS);
    const endWaits = await samplePgWaits(target.databaseUrl);
    const window = async () => {
      const start = await countEvents(pool);
      const endWatch = watchCpu(target);
      const loadStarted = performance.now();
      const measured = await runLoad(loadTarget, plan, { connections: settings.connections, durationSeconds: settings.durationSeconds }, label);
      return { start, measured, seconds: (performance.now() - loadStarted) / 1000, cpu: endWatch() };
    };
    const { start, measured, seconds, cpu } = await window().catch(async (error: unknown) => {
      await endWaits();
      throw error;
    });
    const pgWaits = await endWaits();
    await sleep(SETTLE_MS);
    const end = await countEvents(pool);
    const stored = end.count - start.count;
    const answered = measured.totalRequests * BATCH;
    // Every answered batch is stored; the ones cut off at the end may be stored unanswered.
    if (stored < answered || stored > answered + settings.connections * BATCH) {
      throw new LoadError(`${label}: ${measured.totalRequests} batches answered 2xx but ${stored} events stored`);
    }
    const batchesPerSecond = measured.totalRequests / seconds;
    return {
      eventsPerSecond: Math.round(stored / seconds),
      eventsStored: stored,
      seconds: round1(seconds),
      batchesPerSecond: round1(batchesPerSecond),
      meanEventsPerBatch: BATCH,
      batchLatencyMs: measured.latencyMs,
      errors: measured.non2xx + measured.errors,
      inFlight: round1((batchesPerSecond * measured.latencyMs.mean) / 1000),
      cpu,
      pgWaits,
      eventsInTableAtStart: start.count,
      countQueryMs: [start.queryMs, end.queryMs],
      details: { autocannonRequestsPerSecond: measured.requestsPerSecond, bytesPerBody: meanBytes, statusCodes: measured.statusCodes },
    };
  });
}

/** core-ms spent per 1000 events by each party. */
function coreMsPer1000(cpu: CpuShare | null, window: IngestionWindow): Record<string, number> | null {
  if (!cpu || window.eventsStored === 0) return null;
  const perThousand = (percent: number) => round1(((percent / 100) * cpu.cores * cpu.seconds * 1000 * 1000) / window.eventsStored);
  return {
    bench: perThousand(cpu.benchPercent),
    server: perThousand(cpu.serverPercent),
    postgres: perThousand(cpu.postgresPercent + cpu.postgresSharedPercent),
    other: perThousand(cpu.foreignPercent),
  };
}

/** Where the cores went, what the database connections waited on, and what the senders saw. */
function whereTimeGoes(name: string, result: IngestionResult, senders: number): string[] {
  const lines: string[] = [];
  const cpu = result.cpu;
  const cost = coreMsPer1000(cpu, result);
  if (cpu && cost) {
    const serverSide = cpu.serverPercent + cpu.postgresPercent + cpu.postgresSharedPercent;
    const idle = Math.max(0, 100 - cpu.machinePercent);
    lines.push(
      `${name}: ${describeCpu(cpu)}; idle ${round1(idle)}%.`,
      `  per 1000 events: server ${cost.server} core-ms, PostgreSQL ${cost.postgres}, load generator ${cost.bench}, other ${cost.other}.`,
      `  server + PostgreSQL used ${((serverSide / 100) * cpu.cores).toFixed(2)} cores for ${result.eventsPerSecond.toLocaleString('en-US')} events/s; ` +
        `at that cost all ${cpu.cores} cores would carry about ${Math.round((result.eventsPerSecond * 100) / Math.max(serverSide, 1)).toLocaleString('en-US')} events/s.`,
    );
  }
  if (result.pgWaits) lines.push(`  the server's PostgreSQL connections, on average: ${describePgWaits(result.pgWaits)}.`);
  if (result.batchLatencyMs && result.inFlight !== null) {
    lines.push(
      `  Little's law: ${result.batchesPerSecond} batches/s × ${result.batchLatencyMs.mean} ms mean = ${result.inFlight} batches in flight ` +
        `of ${senders} senders: ${result.inFlight >= senders * 0.9 ? 'the senders were always waiting on the server' : 'the senders did not keep the server busy'}.`,
    );
  }
  return lines;
}

export const ingestionScenario: Scenario = {
  name: 'ingestion',
  async run(config: BenchConfig, log: Log) {
    const settings: IngestionSettings = {
      clients: config.ingestClients,
      connections: config.ingestConnections,
      durationSeconds: config.ingestDurationSeconds,
      warmupSeconds: config.ingestWarmupSeconds,
      distinctIds: config.ingestDistinctIds,
      surveyShare: config.ingestSurveyShare,
      maxForeignCpuPercent: config.maxForeignCpuPercent,
      retries: config.retries,
    };
    log(
      `ingestion: ${settings.clients} posthog-node clients, then autocannon with ${settings.connections} connections; ` +
        `${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s each; ${settings.distinctIds} distinct ids` +
        (settings.surveyShare > 0 ? `; ${Math.round(settings.surveyShare * 100)} % survey events of one survey` : ''),
    );
    const baselineDir = process.env.BENCH_BASELINE_DIR?.trim();
    if (baselineDir) {
      return ingestionAgainstBaseline(config, log, baselineDir, settings, (target, token, pool, seed) => posthogNodeAttempt(target, token, pool, settings, seed, log));
    }
    const target = await startBellwether(config.adminDatabaseUrl);
    log(`${target.name} is up at ${target.baseUrl} (pid ${target.pid}, database ${target.databaseName})`);
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 1 }); // the counts
    try {
      const project = await expectStatus(200, 'GET', `${target.baseUrl}/api/projects/1/`, target.headers);
      const token = (project.body as { api_token?: unknown }).api_token;
      if (typeof token !== 'string' || !token.startsWith('phc_')) throw new Error(`project 1 has no phc_ token: ${project.text.slice(0, 300)}`);

      let seed = 1;
      const label = `posthog-node ×${settings.clients}`;
      const posthogNode: IngestionResult = await untilUndisturbed(target, settings, label, log, () =>
        posthogNodeAttempt(target, token, pool, settings, seed++, log),
      );
      log(
        `${label}: ${posthogNode.eventsPerSecond} events/s stored, batch p50 ${posthogNode.batchLatencyMs?.p50} ms, ` +
          `p99 ${posthogNode.batchLatencyMs?.p99} ms; cores: ${describeCpu(posthogNode.cpu)}${posthogNode.disturbed ? ' DISTURBED' : ''}`,
      );
      const ceiling = await autocannonVariant(target, token, pool, settings, log);
      log(
        `autocannon ×${settings.connections}: ${ceiling.eventsPerSecond} events/s stored, batch p50 ${ceiling.batchLatencyMs?.p50} ms, ` +
          `p99 ${ceiling.batchLatencyMs?.p99} ms; cores: ${describeCpu(ceiling.cpu)}${ceiling.disturbed ? ' DISTURBED' : ''}`,
      );
      await pool.end();
      await target.stop();
      log(`${target.name} stopped, its database dropped`);

      const aims: Aim[] = [
        {
          aim: `≥ ${AIM_EVENTS_PER_SECOND.toLocaleString('en-US')} events/s sustained through posthog-node (stored, batches of ${BATCH})`,
          pass: posthogNode.eventsPerSecond >= AIM_EVENTS_PER_SECOND,
          actual: `${posthogNode.eventsPerSecond.toLocaleString('en-US')} events/s`,
        },
        { aim: 'no errors', pass: posthogNode.errors + ceiling.errors === 0, actual: `${posthogNode.errors + ceiling.errors}` },
      ];
      const rows = [['variant', 'events/s stored', 'batches/s', 'batch p50 / p99', 'errors', 'cores: bench · server · postgres · other']];
      for (const [name, result] of [
        [`posthog-node, ${settings.clients} clients`, posthogNode],
        [`autocannon, ${settings.connections} conn., pre-built gzip`, ceiling],
      ] as const) {
        const cpu = result.cpu;
        rows.push([
          name,
          `${result.eventsPerSecond.toLocaleString('en-US')}${result.disturbed ? ' *' : ''}`,
          `${result.batchesPerSecond}`,
          result.batchLatencyMs ? `${result.batchLatencyMs.p50} / ${result.batchLatencyMs.p99} ms` : '-',
          `${result.errors}`,
          cpu
            ? `${cpu.benchPercent}% · ${cpu.serverPercent}% · ${round1(cpu.postgresPercent + cpu.postgresSharedPercent)}% · ${cpu.foreignPercent}%`
            : '-',
        ]);
      }
      const verdict = (aim: Aim) => (aim.pass === null ? 'n/a ' : aim.pass ? 'PASS' : 'MISS');
      const notes = [
        `Cores in % of the machine's ${posthogNode.cpu?.cores ?? '?'}; the load generator shares them with the server and PostgreSQL.`,
        ...([posthogNode, ceiling].some((r) => r.disturbed) ? ['* disturbed: other work used more than the allowed share of the cores even after retries.'] : []),
        '',
        'Where the cores go:',
        ...whereTimeGoes(`posthog-node`, posthogNode, settings.clients),
        ...whereTimeGoes(`autocannon`, ceiling, settings.connections),
      ];
      const report =
        `Ingestion (POST /batch/, ${BATCH} events per batch, gzip)\n${table(rows)}\n${notes.join('\n')}\n\n` +
        `Aims:\n${aims.map((aim) => `  ${verdict(aim)}  ${aim.aim}: ${aim.actual}`).join('\n')}\n`;
      return {
        file: 'ingestion',
        settings: { ...settings, batchSize: BATCH, flushIntervalMs: FLUSH_INTERVAL_MS, queuedPerClient: HIGH_WATER, prebuiltBatches: PREBUILT_BATCHES },
        report,
        data: {
          target: { notes: target.notes },
          results: {
            posthogNode: { ...posthogNode, coreMsPer1000Events: coreMsPer1000(posthogNode.cpu, posthogNode) },
            autocannon: { ...ceiling, coreMsPer1000Events: coreMsPer1000(ceiling.cpu, ceiling) },
          },
          aims,
        },
      };
    } finally {
      await pool.end().catch(() => undefined);
      await target.stop();
    }
  },
};
