/**
 * Work of an area that outlives its request or runs on a timer, in this process: one shape for
 * every area. One-off runs (a large cohort calculation, a copy's cohorts) go to `BackgroundJobs`;
 * periodic work (the survey rounds, the `last_called_at` flush) is a `PeriodicWork` started once
 * the app is ready. Closing the app stops both and waits for what is running. A process that dies
 * mid-run leaves what the work marks (a cohort's `is_calculating: true`) until it runs again.
 */
import type { FastifyBaseLogger } from 'fastify';

/** The app's logger as jobs use it (structured details first, then the message). */
export type JobLog = Pick<FastifyBaseLogger, 'info' | 'error'>;

export class BackgroundJobs {
  private readonly running = new Set<Promise<void>>();
  private stopping = false;

  constructor(private readonly log: JobLog) {}

  /** True once the app is closing: long runs check it between batches. */
  get stopRequested(): boolean {
    return this.stopping;
  }

  start(name: string, work: () => Promise<void>): void {
    const job = work()
      .catch((error: unknown) => this.log.error({ err: error }, `${name} failed`))
      .finally(() => this.running.delete(job));
    this.running.add(job);
  }

  async close(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }
}

/** Work on a timer: `start` once the app is ready, `stop` (waiting for a round in flight) when it closes. */
export interface PeriodicWork {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Rounds on a timer: every `intervalMs` (the first after one interval; 0 = no timer, `runOnce` still
 * works), never two at once, a failed round logged and the next one scheduled; the timer never keeps
 * the process alive.
 */
export abstract class TimedRounds implements PeriodicWork {
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<unknown> | null = null;
  /** Set once `stop` is called: a long round checks it between steps. */
  protected stopped = false;

  protected constructor(
    protected readonly log: JobLog,
    protected readonly intervalMs: number,
    /** Logged when a round fails, e.g. "survey jobs round failed". */
    private readonly failure: string,
  ) {}

  abstract runOnce(): Promise<unknown>;

  start(): void {
    if (this.intervalMs <= 0 || this.timer !== null || this.stopped) return;
    this.schedule();
  }

  /** No more rounds; waits for the one in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.inFlight;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.inFlight = this.runOnce()
        .catch((error: unknown) => this.log.error({ err: error }, this.failure))
        .finally(() => {
          this.inFlight = null;
          if (!this.stopped) this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }
}

export interface PluginJobs {
  jobs: BackgroundJobs;
  log: JobLog;
  /** Ties `work` to the app's life: started on ready, stopped on close. */
  periodic(work: PeriodicWork): void;
}

interface JobsHost {
  log: JobLog;
  addHook(name: 'onReady' | 'onClose', hook: () => Promise<void>): unknown;
}

/** An area's jobs, logged through the app's logger and stopped when the app closes. */
export function pluginJobs(app: JobsHost): PluginJobs {
  const jobs = new BackgroundJobs(app.log);
  app.addHook('onClose', async () => jobs.close());
  return {
    jobs,
    log: app.log,
    periodic(work) {
      app.addHook('onReady', async () => work.start());
      app.addHook('onClose', async () => work.stop());
    },
  };
}
