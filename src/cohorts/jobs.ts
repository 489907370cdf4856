/**
 * Calculations that outlive their request (large projects). They run in this process; closing
 * the app asks them to stop between batches and waits for them. A process that dies mid-run
 * leaves the cohort with `is_calculating: true` until it is calculated again.
 */
export interface JobLog {
  info(message: string): void;
  error(message: string, error: unknown): void;
}

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
      .catch((error: unknown) => this.log.error(`${name} failed`, error))
      .finally(() => this.running.delete(job));
    this.running.add(job);
  }

  async close(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }
}

/** Background jobs for one plugin, logged through the app's logger and stopped when the app closes. */
export function pluginJobs(app: { log: { info(msg: string): void; error(obj: object, msg: string): void }; addHook(name: 'onClose', hook: () => Promise<void>): unknown }): { jobs: BackgroundJobs; log: JobLog } {
  const log: JobLog = {
    info: (message) => app.log.info(message),
    error: (message, error) => app.log.error({ err: error }, message),
  };
  const jobs = new BackgroundJobs(log);
  app.addHook('onClose', async () => jobs.close());
  return { jobs, log };
}
