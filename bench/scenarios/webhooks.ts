/**
 * Webhooks under a burst (issue 21): three endpoints in the bench process, one answering 200 at
 * once, one after 2 s, one 500; BENCH_WEBHOOK_CHANGES flag changes (PATCHes, 8 at a time, as fast as
 * they go or paced at BENCH_WEBHOOK_RATE a second) to flags all three listen to. Measured:
 * - every change reaches the fine endpoint (none lost), and how many arrived twice (at-least-once);
 * - the failing endpoint's gaps between attempts of one message, against the schedule (15 s, then 1 min, ±20 %),
 *   and the lateness of its retries (a sample's scheduled times read from the outbox, against arrival);
 * - flag PATCH latency (one after another, on a flag of its own) idle, during the write burst, and
 *   while the outbox drains, as p50/p99 and the ratio to idle; and during a control burst (the same
 *   changes and writers before any endpoint is subscribed), so the cost webhooks add shows apart from
 *   the cost of the concurrent writers;
 * - how many the 2 s endpoint got meanwhile (at most WEBHOOK_CONCURRENCY in flight to it).
 * Bellwether runs as production does on this machine: BENCH_WEBHOOK_WORKERS API workers (default 2,
 * with the cluster's background process); with BENCH_BASELINE_DIR, a baseline checkout is measured
 * first with the same settings, and the report sets the two side by side.
 */
import path from 'node:path';
import http from 'node:http';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import type { BenchConfig } from '../lib/config.ts';
import { expectStatus } from '../lib/http.ts';
import { table } from '../lib/report.ts';
import { startBellwether } from '../targets/bellwether.ts';
import type { Log, Scenario } from './scenario.ts';

const PROJECT = 1;
const WRITERS = 8;
const FLAGS = 100;
const PROBE_PATCHES = 300;

interface Receiver {
  url: string;
  /** webhook-id → the times (ms) each attempt arrived. */
  arrivals: Map<string, number[]>;
  /** The flag versions (key:version) delivered. */
  changes: Set<string>;
  requests: number;
  /** The most requests it was answering at once. */
  maxConcurrent: number;
  close(): Promise<void>;
}

async function startReceiver(status: number, delayMs: number): Promise<Receiver> {
  const receiver: Receiver = { url: '', arrivals: new Map(), changes: new Set(), requests: 0, maxConcurrent: 0, close: async () => {} };
  let answering = 0;
  const server = http.createServer((request, response) => {
    answering++;
    receiver.maxConcurrent = Math.max(receiver.maxConcurrent, answering);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests++;
      const id = String(request.headers['webhook-id']);
      const times = receiver.arrivals.get(id) ?? [];
      times.push(Date.now());
      receiver.arrivals.set(id, times);
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { object?: { key?: string; version?: number } } };
        const object = body.data?.object;
        if (object?.key) receiver.changes.add(`${object.key}:${object.version}`);
      } catch {
        // counted as a request all the same
      }
      setTimeout(() => {
        answering--;
        response.writeHead(status).end(status === 200 ? 'ok' : 'broken');
      }, delayMs);
    });
  });
  // Node's default. At 1 s, Node's client (which gives up a kept connection 1 s before the server's
  // timeout) never reused one: every delivery opened a new connection, which real receivers do not cause.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (value: number) => Math.round(value * 100) / 100;

/** The failing endpoint's pending rows: the wait the worker set after each attempt number (the schedule, jitter included). */
async function scheduledGaps(databaseUrl: string, url: string): Promise<{ attempts: number; rows: number; min: number; max: number }[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ attempts: number; rows: number; min: number; max: number }>(
      `SELECT d.attempts, count(*)::int AS rows,
              round(min(extract(epoch FROM d.next_attempt_at - d.last_attempt_at))::numeric, 1)::float AS min,
              round(max(extract(epoch FROM d.next_attempt_at - d.last_attempt_at))::numeric, 1)::float AS max
         FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE e.url = $1 AND d.status = 'pending' AND d.in_flight_until IS NULL AND d.attempts > 0
        GROUP BY d.attempts ORDER BY d.attempts`,
      [url],
    );
    return rows;
  } finally {
    await client.end();
  }
}

/**
 * Retry lateness on the failing endpoint: for a sample of its messages, the time each retry was
 * scheduled for (read from the outbox while the row waits) against when it reached the receiver.
 */
class RetryLateness {
  private readonly tracked = new Set<string>();
  /** webhook-id → attempt number → when the attempt after it was scheduled (ms). */
  private readonly scheduled = new Map<string, Map<number, number>>();
  private seen = 0;
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> = Promise.resolve();
  private readonly client: pg.Client;

  constructor(databaseUrl: string, private readonly receiver: Receiver, private readonly sampleEvery: number, private readonly maxTracked = 300) {
    this.client = new pg.Client({ connectionString: databaseUrl });
  }

  async start(endpointUrl: string): Promise<void> {
    await this.client.connect();
    const { rows } = await this.client.query<{ id: string }>('SELECT id FROM webhook_endpoints WHERE url = $1', [endpointUrl]);
    const endpointId = rows[0].id;
    this.timer = setInterval(() => {
      this.polling = this.polling.then(() => this.poll(endpointId)).catch(() => undefined);
    }, 500);
  }

  private async poll(endpointId: string): Promise<void> {
    for (const id of this.receiver.arrivals.keys()) {
      if (this.tracked.size >= this.maxTracked) break;
      if (this.tracked.has(id)) continue;
      if (this.seen++ % this.sampleEvery === 0) this.tracked.add(id);
    }
    if (this.tracked.size === 0) return;
    const { rows } = await this.client.query<{ message_id: string; attempts: number; due: Date }>(
      `SELECT message_id, attempts, next_attempt_at AS due FROM webhook_deliveries
        WHERE endpoint_id = $1 AND status = 'pending' AND attempts > 0 AND in_flight_until IS NULL AND message_id = ANY($2)`,
      [endpointId, [...this.tracked]],
    );
    for (const row of rows) {
      const byAttempt = this.scheduled.get(row.message_id) ?? new Map<number, number>();
      byAttempt.set(row.attempts, row.due.getTime());
      this.scheduled.set(row.message_id, byAttempt);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.polling;
    await this.client.end();
  }

  /** Seconds each retry (attempt 2, attempt 3) came after its scheduled time. */
  lateness(): { afterAttempt1: number[]; afterAttempt2: number[] } {
    const result = { afterAttempt1: [] as number[], afterAttempt2: [] as number[] };
    for (const [id, byAttempt] of this.scheduled) {
      const times = this.receiver.arrivals.get(id) ?? [];
      for (const [attempt, due] of byAttempt) {
        const arrived = times[attempt];
        if (arrived === undefined) continue;
        (attempt === 1 ? result.afterAttempt1 : attempt === 2 ? result.afterAttempt2 : []).push((arrived - due) / 1000);
      }
    }
    return result;
  }
}

interface Latency {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

function summarise(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return { samples: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? NaN) };
}

function changesFromEnv(): number {
  const raw = Number(process.env.BENCH_WEBHOOK_CHANGES ?? '10000');
  if (!Number.isInteger(raw) || raw < 100) throw new Error('BENCH_WEBHOOK_CHANGES must be a whole number of at least 100');
  return raw;
}

/** BENCH_WEBHOOK_RATE: changes per second in all (the writers paced); unset: as fast as the writers go. */
function rateFromEnv(): number | null {
  const raw = process.env.BENCH_WEBHOOK_RATE;
  if (raw === undefined || raw === '') return null;
  const rate = Number(raw);
  if (!Number.isFinite(rate) || rate <= 0) throw new Error('BENCH_WEBHOOK_RATE must be a positive number of changes per second');
  return rate;
}

/** BENCH_WEBHOOK_WORKERS: Bellwether's WORKERS (default 2: one per core here, as `npm start` runs; 1: one process). */
function workersFromEnv(): number {
  const workers = Number(process.env.BENCH_WEBHOOK_WORKERS ?? '2');
  if (!Number.isInteger(workers) || workers < 1) throw new Error('BENCH_WEBHOOK_WORKERS must be a whole number of at least 1');
  return workers;
}

interface Measured {
  data: Record<string, unknown>;
  rows: string[][];
  p99: { idle: number; burst: number; control: number };
}

async function measure(config: BenchConfig, log: Log, changes: number, rate: number | null, workers: number, root: string | undefined): Promise<Measured> {
  const fine = await startReceiver(200, 0);
  const slow = await startReceiver(200, 2000);
  const failing = await startReceiver(500, 0);
  const target = await startBellwether(config.adminDatabaseUrl, { workers, root, env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  try {
    const base = `${target.baseUrl}/api/projects/${PROJECT}`;
    const headers = { ...target.headers, 'content-type': 'application/json' };
    const post = (path: string, body: unknown) => expectStatus(201, 'POST', `${base}${path}`, headers, JSON.stringify(body));
    const flagIds: number[] = [];
    for (let i = 0; i < FLAGS; i++) {
      flagIds.push((((await post('/feature_flags/', { key: `burst-${i}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })).body) as { id: number }).id);
    }
    const probeId = (((await post('/feature_flags/', { key: 'probe', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })).body) as { id: number }).id;

    const patch = async (id: number, name: string): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${base}/feature_flags/${id}/`, { method: 'PATCH', headers, body: JSON.stringify({ name }) });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`PATCH answered ${response.status}`);
      return performance.now() - started;
    };
    let probeCount = 0;
    const probe = async (until: () => boolean, max = PROBE_PATCHES): Promise<number[]> => {
      const samples: number[] = [];
      while (!until() && samples.length < max) samples.push(await patch(probeId, `probe ${probeCount++}`));
      return samples;
    };

    let next = 0;
    const burst = async (): Promise<{ probe: Latency; seconds: number }> => {
      next = 0;
      const started = performance.now();
      const writer = async () => {
        while (next < changes) {
          const i = next++;
          // Paced (BENCH_WEBHOOK_RATE): change i is not made before its time.
          if (rate !== null) {
            const wait = started + (i * 1000) / rate - performance.now();
            if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          }
          await patch(flagIds[i % FLAGS], `change ${i}`);
        }
      };
      let done = false;
      const writers = Promise.all(Array.from({ length: WRITERS }, writer)).then(() => {
        done = true;
      });
      const during = summarise(await probe(() => done, Number.POSITIVE_INFINITY));
      await writers;
      return { probe: during, seconds: (performance.now() - started) / 1000 };
    };

    // Control: the same burst before any endpoint is subscribed (nothing enqueued, nothing delivered).
    log(`webhooks: control burst, ${changes} flag changes, ${WRITERS} at a time, no endpoint subscribed`);
    const control = await burst();
    const probesBeforeEndpoints = probeCount;
    for (const receiver of [fine, slow, failing]) await post('/webhooks/', { url: receiver.url, events: ['feature_flag.updated'] });

    // Idle: no burst, nothing to deliver but the probe's own changes.
    log(`webhooks: idle PATCH latency (${PROBE_PATCHES} one after another)`);
    await probe(() => false, 50);
    const idle = summarise(await probe(() => false));
    const idleDeliveredBaseline = fine.changes.size;

    log(`webhooks: ${changes} flag changes, ${WRITERS} at a time, to 3 endpoints`);
    const lateness = new RetryLateness(target.databaseUrl, failing, Math.max(1, Math.floor(changes / 300)));
    await lateness.start(failing.url);
    const { probe: duringBurst, seconds: burstSeconds } = await burst();

    log('webhooks: PATCH latency while the outbox drains to the fine endpoint');
    const drainStarted = performance.now();
    const duringDrain = summarise(await probe(() => fine.changes.size >= changes + idleDeliveredBaseline, Number.POSITIVE_INFINITY));
    // Every PATCH made since the endpoints exist is one message to each.
    const expected = changes + probeCount - probesBeforeEndpoints;
    const deadline = Date.now() + 120_000;
    while (fine.changes.size < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const drainSeconds = (performance.now() - drainStarted) / 1000;

    // Let the failing endpoint's first retries (15 s, then 1 min after) come due.
    const retryWaitMs = Number(process.env.BENCH_WEBHOOK_RETRY_WAIT_MS ?? '100000');
    log(`webhooks: waiting ${retryWaitMs / 1000} s for the failing endpoint's retries`);
    await new Promise((resolve) => setTimeout(resolve, retryWaitMs));
    const gaps: { first: number[]; second: number[] } = { first: [], second: [] };
    for (const times of failing.arrivals.values()) {
      if (times.length >= 2) gaps.first.push((times[1] - times[0]) / 1000);
      if (times.length >= 3) gaps.second.push((times[2] - times[1]) / 1000);
    }
    const gapSummary = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { messages: sorted.length, min: round(sorted[0] ?? NaN), p50: round(percentile(sorted, 50)), max: round(sorted.at(-1) ?? NaN) };
    };
    const lateSummary = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { retries: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1) ?? NaN) };
    };

    await lateness.stop();
    const late = lateness.lateness();
    const lateFirst = lateSummary(late.afterAttempt1);
    const lateSecond = lateSummary(late.afterAttempt2);
    const scheduled = await scheduledGaps(target.databaseUrl, failing.url);
    const fineIds = [...fine.arrivals.values()];
    const duplicates = fineIds.reduce((sum, times) => sum + times.length - 1, 0);
    const lost = expected - fine.changes.size;
    const drainRatio = round(duringDrain.p99 / idle.p99);
    const burstRatio = round(duringBurst.p99 / idle.p99);
    const webhookCostRatio = round(duringBurst.p99 / control.probe.p99);
    const data = {
      changes,
      probeChanges: probeCount,
      burst: { seconds: round(burstSeconds), changesPerSecond: round(changes / burstSeconds) },
      controlBurst: { seconds: round(control.seconds), changesPerSecond: round(changes / control.seconds) },
      fine: { expected, delivered: fine.changes.size, lost, requests: fine.requests, duplicates, drainSeconds: round(drainSeconds) },
      slow: { requests: slow.requests, messages: slow.arrivals.size, maxConcurrent: slow.maxConcurrent },
      failing: {
        messages: failing.arrivals.size,
        requests: failing.requests,
        firstRetryGapSeconds: gapSummary(gaps.first),
        secondRetryGapSeconds: gapSummary(gaps.second),
        scheduledWaitSecondsByAttempt: scheduled,
        retryLatenessSeconds: { secondAttempt: lateFirst, thirdAttempt: lateSecond },
        maxConcurrent: failing.maxConcurrent,
      },
      fineMaxConcurrent: fine.maxConcurrent,
      patchLatencyMs: { idle, duringBurst, duringDrain, duringControlBurst: control.probe },
      p99Ratio: { duringBurst: burstRatio, duringDrain: drainRatio, duringBurstVsControlBurst: webhookCostRatio },
    };
    const rows = [
        ['burst', `${round(burstSeconds)} s (${round(changes / burstSeconds)} changes/s, ${WRITERS} writers)`],
        ['fine endpoint', `${fine.changes.size} of ${expected} changes delivered, ${lost} lost, ${duplicates} duplicates, drained ${round(drainSeconds)} s after the burst`],
        ['2 s endpoint', `${slow.arrivals.size} messages meanwhile, at most ${slow.maxConcurrent} at once (fine: ${fine.maxConcurrent}, 500: ${failing.maxConcurrent})`],
        ['500 endpoint', `${failing.arrivals.size} messages; 1st retry gap p50 ${gapSummary(gaps.first).p50} s (${gapSummary(gaps.first).min}–${gapSummary(gaps.first).max}); 2nd p50 ${gapSummary(gaps.second).p50} s (${gaps.second.length} messages)`],
        ['500 endpoint, retry lateness', `2nd attempt: p50 ${lateFirst.p50} s, p99 ${lateFirst.p99} s, max ${lateFirst.max} s (${lateFirst.retries} sampled); 3rd: p50 ${lateSecond.p50} s, p99 ${lateSecond.p99} s (${lateSecond.retries})`],
        ['500 endpoint, as scheduled', scheduled.map((row) => `after attempt ${row.attempts}: ${row.min}–${row.max} s (${row.rows} rows)`).join('; ')],
        ['PATCH idle', `p50 ${idle.p50} ms, p99 ${idle.p99} ms`],
        ['PATCH during burst', `p50 ${duringBurst.p50} ms, p99 ${duringBurst.p99} ms (${burstRatio}× idle p99)`],
        ['PATCH during control burst', `p50 ${control.probe.p50} ms, p99 ${control.probe.p99} ms (same burst, no endpoint; ${round(control.seconds)} s)`],
        ['PATCH during burst vs control', `p99 ${webhookCostRatio}× the control's p99 (the cost webhooks add)`],
        ['PATCH while draining', `p50 ${duringDrain.p50} ms, p99 ${duringDrain.p99} ms (${drainRatio}× idle p99; ${duringDrain.samples} samples)`],
    ];
    return { data: { ...data, retryWaitMs }, rows, p99: { idle: idle.p99, burst: duringBurst.p99, control: control.probe.p99 } };
  } finally {
    await target.stop();
    await Promise.all([fine.close(), slow.close(), failing.close()]);
  }
}

export const webhooksScenario: Scenario = {
  name: 'webhooks',
  async run(config: BenchConfig, log: Log) {
    const changes = changesFromEnv();
    const rate = rateFromEnv();
    const workers = workersFromEnv();
    const baselineDir = process.env.BENCH_BASELINE_DIR?.trim() || null;
    const title = (side: string) => `Webhooks, ${side}: ${changes} flag changes${rate === null ? '' : ` paced at ${rate}/s`} to 3 endpoints (fine, 2 s, 500), Bellwether with WORKERS=${workers}`;
    const sections: string[] = [];
    let baseline: Measured | null = null;
    if (baselineDir) {
      log(`webhooks: the baseline in ${baselineDir}`);
      baseline = await measure(config, log, changes, rate, workers, baselineDir);
      sections.push(title(`baseline (${path.basename(baselineDir)})`), table([['measure', 'value'], ...baseline.rows]));
    }
    log('webhooks: this checkout');
    const current = await measure(config, log, changes, rate, workers, undefined);
    sections.push(title('this checkout'), table([['measure', 'value'], ...current.rows]));
    const ratio = (m: Measured) => round(m.p99.burst / m.p99.idle);
    if (baseline) sections.push(`PATCH p99 during the burst ÷ idle: baseline ${ratio(baseline)}×, this checkout ${ratio(current)}×; ÷ control: baseline ${round(baseline.p99.burst / baseline.p99.control)}×, this checkout ${round(current.p99.burst / current.p99.control)}×`);
    const retryWaitMs = Number(process.env.BENCH_WEBHOOK_RETRY_WAIT_MS ?? '100000');
    return {
      file: 'webhooks',
      settings: { changes, writers: WRITERS, flags: FLAGS, retryWaitMs, changesPerSecond: rate ?? 'unpaced', workers, baseline: baselineDir },
      report: sections.join('\n'),
      data: baseline ? { baseline: baseline.data, current: current.data } : current.data,
    };
  },
};
