/**
 * Runs due scheduled changes on every node. A round claims and applies changes in units of work
 * of up to `batch` changes (runDue) on a few connections at once until none is due; rows locked by another node
 * are skipped, so nodes share the work and none applies a change twice. Rounds run every
 * `intervalMs` and once at start, which applies what fell due while the service was down.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { FlagWriteDeps } from '../flags/write-deps.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchNeedsSavepoints, runDue, type RunResult } from './apply.ts';
import { InteractiveWrites, type YieldOptions } from './yield.ts';

export const DEFAULT_INTERVAL_MS = 5_000;
export const DEFAULT_CONCURRENCY = 1;
/** Changes claimed and committed together by one unit of work. */
export const DEFAULT_BATCH = 50;
/** After each batch, a pause of this share of its own time (a duty cycle that leaves cores to interactive work). */
export const DEFAULT_PAUSE_PERCENT = 25;
/** Longest a batch waits for a gap in this node's API writes. */
export const DEFAULT_WRITE_WAIT_MS = 0;

export type ExecutorLog = Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;

export interface ExecutorOptions {
  log: ExecutorLog;
  /** Milliseconds between rounds; 0 turns the timer off (runOnce still works). */
  intervalMs: number;
  /** Units of work applying changes at once in this process. */
  concurrency: number;
  batch: number;
  /** Giving way to interactive work (yield.ts). */
  pausePercent: YieldOptions['pausePercent'];
  writeWaitMs: YieldOptions['writeWaitMs'];
  /** This node's API writes; a fresh tracker (never busy) when absent. */
  writes: InteractiveWrites;
}

const silent: ExecutorLog = { info: () => {}, warn: () => {}, error: () => {} };

export class ScheduledChangeExecutor {
  private readonly options: ExecutorOptions;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: FlagWriteDeps,
    options: Partial<ExecutorOptions> = {},
  ) {
    this.options = {
      log: options.log ?? silent,
      intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      batch: options.batch ?? DEFAULT_BATCH,
      pausePercent: options.pausePercent ?? DEFAULT_PAUSE_PERCENT,
      writeWaitMs: options.writeWaitMs ?? DEFAULT_WRITE_WAIT_MS,
      writes: options.writes ?? new InteractiveWrites(),
    };
  }

  /** This node's API writes, the signal batches wait out. */
  get writes(): InteractiveWrites {
    return this.options.writes;
  }

  /** One round: every change due at `now`; answers what each run did. */
  async runOnce(now: Date = new Date()): Promise<RunResult[]> {
    const results: RunResult[] = [];
    const { pausePercent, writeWaitMs, writes } = this.options;
    const worker = async () => {
      for (;;) {
        await writes.quiet(writeWaitMs);
        const started = performance.now();
        const ran = await this.runBatch(now);
        if (ran.length === 0) return;
        for (const result of ran) this.report(result);
        results.push(...ran);
        if (this.stopped) return;
        if (pausePercent > 0) await sleep(((performance.now() - started) * pausePercent) / 100);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.options.concurrency) }, worker));
    return results;
  }

  /** One batch, first without savepoints; if a change fails, again with one per change (its failure recorded, the others applied). */
  private async runBatch(now: Date): Promise<RunResult[]> {
    try {
      return await this.deps.units.run((unit) => runDue(this.deps, unit, now, this.options.batch, false), { retry: true });
    } catch (error) {
      if (!(error instanceof BatchNeedsSavepoints)) throw error;
      return this.deps.units.run((unit) => runDue(this.deps, unit, now, this.options.batch, true), { retry: true });
    }
  }

  /** A round at once (missed changes), then one every `intervalMs`; the timer never keeps the process alive. */
  start(): void {
    if (this.options.intervalMs <= 0 || this.timer !== null || this.stopped) return;
    this.schedule(0);
  }

  /** No more rounds; waits for the one in flight (it stops after the change it is applying). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.inFlight;
  }

  private report(result: RunResult): void {
    const { log } = this.options;
    if (result.missed > 0) log.warn({ scheduledChangeId: result.id, missed: result.missed }, 'recurring scheduled change skipped missed runs');
    if (result.outcome === 'failed' || result.outcome === 'retrying') log.warn({ scheduledChangeId: result.id, outcome: result.outcome }, 'scheduled change failed');
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      this.inFlight = this.runOnce()
        .catch((error: unknown) => this.options.log.error({ err: error }, 'scheduled changes round failed'))
        .finally(() => {
          this.inFlight = null;
          this.timer = null;
          if (!this.stopped) this.schedule(this.options.intervalMs);
        });
    }, delay);
    this.timer.unref();
  }
}
