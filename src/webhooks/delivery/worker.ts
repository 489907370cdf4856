/**
 * The delivery worker, on every process: claims due deliveries (skip locked, round-robin across
 * endpoints, an endpoint's rows held by one process at a time), sends them in order per endpoint
 * with at most its concurrency in flight, records the results in batches, and keeps going while
 * there is room and work. It wakes soon after this process writes to the outbox and otherwise
 * looks every `intervalMs`; its claims give way briefly to requests waiting for a connection.
 */
import type { FastifyBaseLogger } from 'fastify';
import { withBoundedRead } from '../../db/bounded-read.ts';
import { poolWrite, type UnitsOfWork } from '../../db/unit-of-work.ts';
import type { WebhookMessage } from '../outbox.ts';
import type { SecretBox } from '../secrets.ts';
import { DestinationRefused, resolveDestination, type Destination } from './destination.ts';
import { retryDelay } from './schedule.ts';
import { postOnce, type AttemptResult } from './send.ts';
import { signedHeaders } from './sign.ts';
import { slackMessage } from './slack.ts';
import { EndpointQueues } from './endpoint-queues.ts';
import { claimDue, forgetFinished, personsServed, recordAttempts, releaseClaimed, type ClaimedDelivery, type FinishedAttempt } from './store.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface DeliverySettings {
  /** Between looks for due deliveries when nothing woke the worker; 0: no timer (tests call `runOnce`). */
  intervalMs: number;
  /** Requests in flight to one endpoint at once, across every process. */
  perEndpoint: number;
  /** Requests in flight from this process at once. */
  maxInFlight: number;
  /** How long one attempt may take. */
  timeoutMs: number;
  /** An endpoint failing everything this long is disabled. */
  disableAfterMs: number;
  /** Delivered and failed rows are kept this long. */
  keepMs: number;
  allowedHosts: ReadonlySet<string>;
  siteUrl: string | null;
  /** Resolves host names (tests give one that answers what they need). */
  resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
}

/** How often a serving process looks for due deliveries when nothing woke it (server.ts passes it). */
export const DELIVERY_INTERVAL_MS = 1000;

/** Without an interval (tests), no timer runs: writes here wake the worker, and tests call `runOnce`. */
export const DEFAULT_DELIVERY_SETTINGS: Omit<DeliverySettings, 'allowedHosts' | 'siteUrl'> = {
  intervalMs: 0,
  perEndpoint: 4,
  maxInFlight: 32,
  timeoutMs: 10_000,
  disableAfterMs: 3 * DAY_MS,
  keepMs: 30 * DAY_MS,
};

const SWEEP_EVERY_MS = 10 * 60 * 1000;
/** Writes here and recorded attempts wake the worker at most this often (a burst costs one claim per window, not one each). */
export const WAKE_WINDOW_MS = 25;
/** Finished attempts wait this long for others to be recorded with them in one unit of work (their slot is free meanwhile). */
const RECORD_WINDOW_MS = 10;
/** Requests waiting for a database connection make a claim wait this long, up to `YIELD_MAX_MS` in all. */
const YIELD_STEP_MS = 10;
const YIELD_MAX_MS = 200;
/** Rows held (claimed, not yet recorded) per process, at most, as a multiple of `maxInFlight`. */
const HELD_PER_SLOT = 4;

export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;
  /** `runOnce` is running (tests): it sends whether or not the worker was started. */
  private forcing = false;
  private readonly queues: EndpointQueues;
  private readonly sends = new Set<Promise<void>>();
  private lastSweep = 0;
  /** Attempts finished but not yet recorded; one unit of work records all that wait. */
  private unrecorded: { finished: FinishedAttempt; at: number; done: (error?: unknown) => void }[] = [];
  private recording: Promise<void> | null = null;

  constructor(
    private readonly units: UnitsOfWork,
    private readonly secrets: SecretBox,
    private readonly settings: DeliverySettings,
    private readonly log: FastifyBaseLogger,
  ) {
    this.queues = new EndpointQueues(settings.perEndpoint, settings.maxInFlight, settings.timeoutMs);
  }

  start(): void {
    this.stopped = false;
    if (this.settings.intervalMs > 0) this.schedule();
  }

  /** Stops claiming, hands back the rows claimed and not started, and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.timer = null;
    this.wakeTimer = null;
    await this.running;
    await this.handBack();
    await Promise.allSettled([...this.sends]);
  }

  /** Something was written to the outbox here, or an endpoint runs low: look soon (within `WAKE_WINDOW_MS`) rather than at the next tick. */
  wake(): void {
    if (this.stopped || this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      void this.pump();
    }, WAKE_WINDOW_MS);
    this.wakeTimer.unref();
  }

  /** Claims and sends until nothing is due, waiting for every attempt (tests). */
  async runOnce(): Promise<void> {
    this.forcing = true;
    try {
      for (;;) {
        await this.pump(true);
        if (this.sends.size === 0) return;
        await Promise.allSettled([...this.sends]);
      }
    } finally {
      this.forcing = false;
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.pump().finally(() => {
        if (!this.stopped) this.schedule();
      });
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  private pump(force = false): Promise<void> {
    if (this.stopped && !force) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.claimWhileRoom(force).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async claimWhileRoom(force: boolean): Promise<void> {
    const maxHeld = this.settings.maxInFlight * HELD_PER_SLOT;
    try {
      do {
        this.again = false;
        while (this.queues.held < maxHeld) {
          await this.yieldToRequests();
          const limit = maxHeld - this.queues.held;
          // One statement each, claim and record: on the pool, without BEGIN and COMMIT around them.
          const claimed = await claimDue(poolWrite(this.units.pool), {
            limit,
            batch: this.queues.firstBatch,
            concurrency: this.settings.perEndpoint,
            attemptMs: this.settings.timeoutMs,
            known: this.queues.known(),
          });
          this.queues.add(claimed);
          this.startSends();
          // Fewer than asked: every endpoint with due rows got its room; claiming again now finds nothing new.
          if (claimed.length < limit) break;
        }
      } while (this.again && (force || !this.stopped));
      if (Date.now() - this.lastSweep > SWEEP_EVERY_MS) {
        this.lastSweep = Date.now();
        await this.units.run((unit) => forgetFinished(unit.client, this.settings.keepMs));
      }
    } catch (error) {
      this.log.warn({ err: error }, 'webhook deliveries: a claim failed; trying again at the next look');
    }
  }

  /**
   * Deliveries yield to the API: while requests wait for a database connection, a claim waits a
   * little (at most `YIELD_MAX_MS`, so deliveries never starve). Recording attempts does not wait.
   */
  private async yieldToRequests(): Promise<void> {
    for (let waited = 0; waited < YIELD_MAX_MS && this.units.pool.waitingCount > 0; waited += YIELD_STEP_MS) {
      await new Promise((resolve) => setTimeout(resolve, YIELD_STEP_MS));
    }
  }

  /** Starts what the endpoints and the process have room for. */
  private startSends(): void {
    if (this.stopped && !this.forcing) return;
    for (const row of this.queues.takeStartable((expired) => this.log.info({ delivery: expired.id }, 'webhook delivery: its lease ran short before its turn; left for the next claim'))) {
      this.launch(row);
    }
  }

  /** Closing: rows claimed and not started are due again now, for any process (their attempt was not made). */
  private async handBack(): Promise<void> {
    const waiting = this.queues.takeWaiting();
    if (waiting.length === 0) return;
    try {
      await this.units.run((unit) => releaseClaimed(unit.client, waiting.map((row) => row.id)));
    } catch (error) {
      this.log.warn({ err: error }, 'webhook deliveries: handing back claimed rows failed; they are due again when their leases run out');
    }
  }

  private launch(row: ClaimedDelivery): void {
    const send: Promise<void> = this.deliver(row)
      .catch((error: unknown) => this.log.warn({ err: error, delivery: row.id }, 'webhook delivery: recording an attempt failed; it is due again after its lease'))
      .finally(() => {
        this.queues.recorded(row.endpoint_id);
        this.sends.delete(send);
        if (this.queues.runsLow(row.endpoint_id)) this.wake();
      });
    this.sends.add(send);
  }

  private async deliver(row: ClaimedDelivery): Promise<void> {
    const started = performance.now();
    let attempt: AttemptResult;
    try {
      attempt = await this.attempt(row);
    } finally {
      // The endpoint's slot is free at once: its next row starts while this one is recorded.
      this.queues.finished(row.endpoint_id, performance.now() - started);
      this.startSends();
    }
    await this.record({ row, attempt, retryInMs: attempt.error === null ? null : retryDelay(row.attempts) });
  }

  /** Resolves once the attempt is recorded, with whatever else finished meanwhile (fewer transactions under load). */
  private record(finished: FinishedAttempt): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.unrecorded.push({ finished, at: performance.now(), done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.recording) this.recording = this.recordWaiting();
    });
  }

  private async recordWaiting(): Promise<void> {
    // Let the attempts finishing meanwhile join the batch.
    await new Promise((resolve) => setTimeout(resolve, RECORD_WINDOW_MS));
    while (this.unrecorded.length > 0) {
      const batch = this.unrecorded.splice(0, 500);
      try {
        // A retry waits from when its attempt ended, not from when it is recorded.
        const recordedAt = performance.now();
        const finished = batch.map(({ finished: each, at }) =>
          each.retryInMs === null ? each : { ...each, retryInMs: Math.max(0, Math.round(each.retryInMs - (recordedAt - at))) },
        );
        await recordAttempts(poolWrite(this.units.pool), finished, this.settings.disableAfterMs);
        for (const each of batch) each.done();
      } catch (error) {
        for (const each of batch) each.done(error);
      }
    }
    this.recording = null;
  }

  /** A flag switched on or off, or deleted: how many it served in the last 24 h (left out when that read fails). */
  private async withSlackFacts(projectId: number, message: WebhookMessage): Promise<WebhookMessage> {
    const changes = (message.data.changes as { field: string }[] | undefined) ?? [];
    const switched = message.type === 'feature_flag.deleted' || (message.type === 'feature_flag.updated' && changes.some((change) => change.field === 'active'));
    const key = (message.data.object as { key?: unknown } | null)?.key;
    if (!switched || typeof key !== 'string') return message;
    try {
      const served = await withBoundedRead(this.units.pool, 2000, (client) => personsServed(client, projectId, key));
      return { ...message, data: { ...message.data, served_persons_24h: served } };
    } catch {
      return message;
    }
  }

  private async attempt(row: ClaimedDelivery): Promise<AttemptResult> {
    let destination: Destination;
    try {
      destination = await resolveDestination(new URL(row.url), this.settings.allowedHosts, this.settings.resolve);
    } catch (error) {
      const message = error instanceof DestinationRefused ? error.message : 'The URL could not be used.';
      return { status: null, body: '', durationMs: 0, error: message };
    }
    const message = { type: row.payload.type, timestamp: row.payload.timestamp, data: row.payload.data };
    const body = JSON.stringify(row.format === 'slack' ? slackMessage(await this.withSlackFacts(row.project_id, message), this.settings.siteUrl) : message);
    const secrets = [this.secrets.open(row.secret)];
    if (row.previous_secret !== null && row.previous_secret_expires_at !== null && row.previous_secret_expires_at.getTime() > Date.now()) {
      secrets.push(this.secrets.open(row.previous_secret));
    }
    const headers = signedHeaders(secrets, row.message_id, Math.floor(Date.now() / 1000), body);
    return postOnce(destination, { ...headers }, body, this.settings.timeoutMs);
  }
}
