/**
 * `$feature_flag_called` → the flag's `last_called_at`, as PostHog does it: buffered in memory and
 * written in batches, never backwards, at most one interval late. No change notice is sent and the
 * SDK views are not rebuilt (they do not show it); other processes pick the new times up with one
 * query per interval (FlagCache.syncLastCalled).
 */
import type { Pool } from '../db/pool.ts';
import { poolWrite } from '../db/unit-of-work.ts';
import type { FlagCache } from '../flags/cache.ts';
import type { PeriodicWork } from '../kernel/jobs.ts';
import { writeLastCalled, type LastCall } from './store.ts';

export const DEFAULT_LAST_CALLED_INTERVAL_MS = 2_000;
/** Calls per UPDATE (three parameters each, well below PostgreSQL's 65 535). */
const WRITE_CHUNK = 1_000;
/** Distinct (project, key) pairs held at most; beyond this a write starts at once and new keys wait for it. */
const MAX_BUFFERED = 20_000;

export interface LastCalledLog {
  error(details: object, message: string): void;
}

export class LastCalledWriter implements PeriodicWork {
  private buffer = new Map<string, LastCall>();
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly flagCache: FlagCache,
    private readonly log: LastCalledLog,
    private readonly intervalMs = DEFAULT_LAST_CALLED_INTERVAL_MS,
  ) {}

  /** The latest call time per key of a committed batch. */
  record(projectId: number, calls: readonly { key: string; at: Date }[]): void {
    for (const { key, at } of calls) {
      const id = `${projectId}\u0000${key}`;
      const seen = this.buffer.get(id);
      if (seen) {
        if (seen.at < at) seen.at = at;
      } else if (this.buffer.size < MAX_BUFFERED) {
        this.buffer.set(id, { projectId, key, at });
      } else {
        // A flood of distinct keys (most name no flag): write what is held now; these are lost.
        if (!this.writing) void this.flush();
        return;
      }
    }
  }

  /** Writes what is buffered (one write at a time), then takes the times other processes wrote. */
  flush(): Promise<void> {
    const previous = this.writing ?? Promise.resolve();
    const next = previous.then(() => this.writeAndSync());
    this.writing = next;
    void next.finally(() => {
      if (this.writing === next) this.writing = null;
    });
    return next;
  }

  start(): void {
    if (this.intervalMs <= 0 || this.timer !== null || this.stopped) return;
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** No more rounds; writes what is still buffered. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async writeAndSync(): Promise<void> {
    const calls = [...this.buffer.values()];
    this.buffer = new Map();
    // A stable order: concurrent writers (other processes) then lock rows alike.
    calls.sort((a, b) => a.projectId - b.projectId || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (let start = 0; start < calls.length; start += WRITE_CHUNK) {
      const chunk = calls.slice(start, start + WRITE_CHUNK);
      try {
        const written = await writeLastCalled(poolWrite(this.pool), chunk);
        for (const flag of written) this.flagCache.noteLastCalled(flag.project_id, [{ id: flag.id, lastCalledAt: flag.last_called_at }]);
      } catch (error) {
        // Kept for the next round (a later time for the same key wins when merged).
        this.log.error({ err: error }, 'writing last_called_at failed; retrying next round');
        for (const call of chunk) this.record(call.projectId, [call]);
      }
    }
    try {
      await this.flagCache.syncLastCalled();
    } catch (error) {
      this.log.error({ err: error }, 'reading last_called_at written elsewhere failed');
    }
  }
}
