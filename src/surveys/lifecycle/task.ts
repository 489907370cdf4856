/** What a lifecycle job is made of; runner.ts runs every job the same way. */
import type { ReadHandle } from '../../db/pool.ts';
import type { UnitOfWork, WriteTx } from '../../db/unit-of-work.ts';
import type { FlagCache } from '../../flags/cache.ts';
import type { Change } from '../../accounts/activity/changes.ts';
import type { ChangeBus } from '../../kernel/changes/bus.ts';
import type { SurveyRecord } from '../record.ts';
import type { LifecyclePatch } from './store.ts';

/** One survey's change: its unit of work (and its connection), and what the flag writer needs. */
export interface JobTransaction {
  unit: UnitOfWork;
  client: WriteTx;
  bus: ChangeBus;
  flagCache: FlagCache;
  now: Date;
}

/** A change a job made to one survey, inside the transaction. */
export interface AppliedChange {
  /** The survey fields written (the activity entry lists their before and after). */
  patch: LifecyclePatch;
  /** Changes that are not survey columns (e.g. the sampling flag's rollout). */
  extraChanges: Change[];
  /** `detail.trigger.payload` of the activity entry. */
  payload: Record<string, unknown>;
  /** One line for the log. */
  summary: string;
}

export interface Candidate<C> {
  survey: SurveyRecord;
  context: C;
}

export interface SurveyJob<C> {
  /** PostHog's task name, written as `detail.trigger.job_type`. */
  jobType: string;
  /** The surveys with something due at `now` (read without locks; `apply` decides again). */
  candidates(db: ReadHandle, now: Date): Promise<Candidate<C>[]>;
  /**
   * Decides again on the survey as locked now (another process or a PATCH may have changed it)
   * and writes the change: its fields (updateSurveyLifecycle) and its flags. null = nothing due.
   */
  apply(tx: JobTransaction, survey: SurveyRecord, context: C): Promise<AppliedChange | null>;
}
