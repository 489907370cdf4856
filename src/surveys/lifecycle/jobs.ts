import type { SurveyDeps } from '../deps.ts';
import { iterationJob } from './iteration.ts';
import { responsesLimitJob } from './responses-limit.ts';
import { TimedRounds, type JobLog } from '../../kernel/jobs.ts';
import { runJob, type SurveyJobChange } from './runner.ts';
import { samplingJob } from './sampling.ts';
import { tryJobsLock } from './store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's periodic survey work (tests run a round at a chosen time with `runOnce`). */
    surveyJobs: SurveyJobs;
  }
}

export const DEFAULT_SURVEY_JOBS_INTERVAL_MS = 60_000;

export interface SurveyJobsOptions {
  log: JobLog;
  /** Milliseconds between rounds; 0 turns the timer off (runOnce still works). */
  intervalMs?: number;
}

export interface SurveyJobsReport {
  /** Another process held the round's lock: this one did nothing. */
  skipped: boolean;
  changes: SurveyJobChange[];
}

const silent: JobLog = { info: () => {}, error: () => {} };

/**
 * The periodic survey work: iteration advance, response-sampling rollout, stop at
 * `responses_limit`. PostHog runs them as hourly/daily tasks; here every round does all three, and
 * each only changes what is due, so running often is harmless. Safe with several processes on one
 * database: a round holds a transaction-scoped advisory lock, a process that cannot take it skips
 * the round, and every change re-checks its survey under a row lock.
 */
export class SurveyJobs extends TimedRounds {
  constructor(
    private readonly deps: Pick<SurveyDeps, 'pool' | 'units' | 'bus' | 'flagCache'>,
    options: Partial<SurveyJobsOptions> = {},
  ) {
    super(options.log ?? silent, options.intervalMs ?? DEFAULT_SURVEY_JOBS_INTERVAL_MS, 'survey jobs round failed');
  }

  /** One round at `now`; answers what it changed. */
  async runOnce(now: Date = new Date()): Promise<SurveyJobsReport> {
    const lock = await this.deps.pool.connect();
    let broken: Error | undefined;
    try {
      // The lock's transaction stays open, idle, while the round works on other connections.
      await lock.query("BEGIN; SET LOCAL idle_in_transaction_session_timeout = 0");
      if (!(await tryJobsLock(lock))) return { skipped: true, changes: [] };
      const changes: SurveyJobChange[] = [];
      // Stopping first: a survey that ends at its limit needs no iteration or sampling change.
      changes.push(...(await runJob(this.deps, responsesLimitJob, now, this.log)));
      changes.push(...(await runJob(this.deps, iterationJob, now, this.log)));
      changes.push(...(await runJob(this.deps, samplingJob, now, this.log)));
      return { skipped: false, changes };
    } finally {
      // Ending the lock's transaction releases the lock.
      await lock.query('ROLLBACK').catch((error: Error) => {
        broken = error;
      });
      lock.release(broken);
    }
  }
}
