/**
 * How the executor gives way to interactive work on its node (docs/scheduled-changes.md, "Sharing
 * the machine"): a duty cycle (after each batch, a pause proportional to the batch's own time) and
 * a cheap in-process signal of management API writes (in flight, or finished a moment ago) that a
 * batch waits out, for a bounded time, before it claims its changes.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Writes this close together count as one burst: a batch waits for a gap this long. */
export const QUIET_GAP_MS = 10;
const POLL_MS = 2;

export interface YieldOptions {
  /** Pause after a batch, as a percentage of the batch's own time (0 = none). */
  pausePercent: number;
  /** Longest a batch waits for a gap in API writes (0 = it does not wait). */
  writeWaitMs: number;
}

/** API writes on this process; the area's hooks feed it, the executor reads it. */
export class InteractiveWrites {
  private inFlight = 0;
  private lastSeenAt = 0;
  /** Writes seen since start (tests, diagnostics). */
  seen = 0;

  started(): void {
    this.inFlight += 1;
    this.seen += 1;
    this.lastSeenAt = performance.now();
  }

  finished(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastSeenAt = performance.now();
  }

  /** True while a write runs or one was seen within the last `QUIET_GAP_MS`. */
  busy(now: number = performance.now()): boolean {
    return this.inFlight > 0 || now - this.lastSeenAt < QUIET_GAP_MS;
  }

  /** Resolves at the first gap in writes or after `maxMs`, whichever comes first. */
  async quiet(maxMs: number): Promise<void> {
    if (maxMs <= 0) return;
    const until = performance.now() + maxMs;
    for (let now = performance.now(); this.busy(now) && now < until; now = performance.now()) {
      await sleep(Math.min(POLL_MS, until - now));
    }
  }
}

/** Methods that change state; reads (including the SDK's POST /flags) are left out by the path test in the area. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
