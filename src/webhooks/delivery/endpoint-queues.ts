/**
 * What this process holds of each endpoint: the rows it claimed, started in order with at most the
 * endpoint's concurrency in flight (and at most `maxInFlight` in all), and how fast the endpoint
 * answered lately (remembered for up to 1 000 endpoints), which sizes the next claim (a fast endpoint gets several waves at a time, a slow
 * one a single wave, so a slow endpoint's rows are not leased long before they are sent).
 */
import type { ClaimedDelivery } from './store.ts';

/** A claim covers the attempts an endpoint gets through in about this long (at least one wave). */
const CLAIM_SPAN_MS = 500;
/** Waves of the endpoint's concurrency in one claim, at most. */
const MAX_WAVES = 8;
/** Endpoints remembered with nothing held (for their speed), at most. */
const MAX_REMEMBERED = 1000;
/** A row whose lease ends sooner than its attempt may take plus this is left for the next claim. */
const LEASE_MARGIN_MS = 1000;

interface EndpointQueue {
  waiting: ClaimedDelivery[];
  /** Attempts in flight. */
  active: number;
  /** Claimed and not yet recorded (waiting, in flight, or being recorded). */
  held: number;
  /** Recent attempt duration (ms, a moving average); undefined before the first. */
  speedMs: number | undefined;
}

export class EndpointQueues {
  private readonly queues = new Map<string, EndpointQueue>();
  private active = 0;
  private heldRows = 0;

  constructor(
    private readonly concurrency: number,
    private readonly maxInFlight: number,
    private readonly timeoutMs: number,
  ) {}

  /** Rows claimed and not yet recorded, in all. */
  get held(): number {
    return this.heldRows;
  }

  /** How many to claim of an endpoint this process has no figure for: one wave. */
  get firstBatch(): number {
    return this.concurrency;
  }

  /** The endpoints this process knows (holds rows of, or timed lately): what it holds, and its claim size. */
  known(): Map<string, { held: number; batch: number }> {
    const known = new Map<string, { held: number; batch: number }>();
    for (const [id, queue] of this.queues) known.set(id, { held: queue.held, batch: this.batchOf(queue) });
    return known;
  }

  /** Whether an endpoint runs low (half its claim size or less held): worth a claim. */
  runsLow(endpointId: string): boolean {
    const queue = this.queues.get(endpointId);
    return queue === undefined || queue.held <= this.batchOf(queue) / 2;
  }

  add(rows: readonly ClaimedDelivery[]): void {
    for (const row of rows) {
      let queue = this.queues.get(row.endpoint_id);
      if (!queue) {
        queue = { waiting: [], active: 0, held: 0, speedMs: undefined };
        this.queues.set(row.endpoint_id, queue);
      }
      queue.waiting.push(row);
      queue.held++;
      this.heldRows++;
    }
  }

  /**
   * The rows to start now, each endpoint's oldest first, while it and the process have room. A row
   * whose lease would run out before its attempt ends is dropped (`onExpired`): it is due again then,
   * for whichever process claims it, and sending it here too could send it twice at once.
   */
  takeStartable(onExpired: (row: ClaimedDelivery) => void): ClaimedDelivery[] {
    const started: ClaimedDelivery[] = [];
    let progress = true;
    // Round-robin: one row per endpoint per pass, so no endpoint takes the process's slots from the others.
    while (progress && this.active < this.maxInFlight) {
      progress = false;
      for (const [id, queue] of this.queues) {
        if (this.active >= this.maxInFlight) break;
        if (queue.active >= this.concurrency || queue.waiting.length === 0) continue;
        const row = queue.waiting.shift()!;
        if ((row.in_flight_until?.getTime() ?? 0) - Date.now() < this.timeoutMs + LEASE_MARGIN_MS) {
          this.release(id, queue);
          onExpired(row);
        } else {
          queue.active++;
          this.active++;
          started.push(row);
        }
        progress = true;
      }
    }
    return started;
  }

  /** An attempt ended (its slot is free; the row is held until recorded). */
  finished(endpointId: string, durationMs: number): void {
    const queue = this.queues.get(endpointId);
    if (!queue) return;
    queue.active--;
    this.active--;
    queue.speedMs = queue.speedMs === undefined ? durationMs : queue.speedMs * 0.7 + durationMs * 0.3;
  }

  /** An attempt's result is stored: the row is no longer held. */
  recorded(endpointId: string): void {
    const queue = this.queues.get(endpointId);
    if (queue) this.release(endpointId, queue);
  }

  /** Rows claimed and not started (closing: handed back so that any process can take them at once). */
  takeWaiting(): ClaimedDelivery[] {
    const waiting: ClaimedDelivery[] = [];
    for (const [id, queue] of this.queues) {
      while (queue.waiting.length > 0) {
        waiting.push(queue.waiting.shift()!);
        this.release(id, queue);
      }
    }
    return waiting;
  }

  private release(id: string, queue: EndpointQueue): void {
    queue.held--;
    this.heldRows--;
    if (queue.held === 0 && this.queues.size > MAX_REMEMBERED) this.queues.delete(id);
  }

  private batchOf(queue: EndpointQueue): number {
    const duration = queue.speedMs;
    if (duration === undefined) return this.concurrency;
    const waves = Math.max(1, Math.min(MAX_WAVES, Math.floor(CLAIM_SPAN_MS / Math.max(1, duration))));
    return this.concurrency * waves;
  }
}
