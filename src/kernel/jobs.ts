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
