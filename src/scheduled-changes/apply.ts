/**
 * Claims due scheduled changes and applies them, in one unit of work: the claim (a row lock,
 * other nodes skip it), the flag write through the flags writer (as the schedule's creator, the
 * activity entry naming the schedule as its trigger) and the row's bookkeeping commit together, so
 * a change is applied exactly once. A batch first runs without savepoints; when a change fails,
 * the batch is rolled back and run again with a savepoint per change, so the failed flag write is
 * rolled back alone and its failure recorded on the same transaction (its effects dropped with it).
 * `scheduled_change.applied` and `scheduled_change.failed` (a failure that will not be retried)
 * are raised in the same unit of work.
 */
import { onSavepoint } from '../db/savepoint.ts';
import { isRetryableConflict } from '../db/unavailable.ts';
import { userSummaryById } from '../accounts/users/user-by-id.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { ApiError } from '../kernel/errors.ts';
import { findFlag } from '../flags/store.ts';
import { updateFlagById } from '../flags/update.ts';
import type { FlagWriteDeps } from '../flags/write-deps.ts';
import { PermanentChangeError, retryDelayMs, storedFailure } from './failure.ts';
import { flagEditFor } from './operations.ts';
import { nextRunAfter } from './recurrence.ts';
import { expireRequest, requestState, setState } from '../approvals/store.ts';
import { advanceRecurring, claimDue, findSchedule, markAllExecuted, markExecuted, recordFailure, type ScheduleRow } from './store.ts';
import { presentSchedule } from './present.ts';
import { raiseEvent } from '../kernel/raised-events.ts';

export const FEATURE_FLAG_MODEL = 'FeatureFlag';
export const JOB_TYPE = 'scheduled_change';
const FLAG_MISSING = 'FeatureFlag matching query does not exist.';

/** skipped: its approval request was not approved by its time (the change is not made). */
export type Outcome = 'applied' | 'failed' | 'retrying' | 'ended' | 'skipped';

export interface RunResult {
  id: number;
  outcome: Outcome;
  /** Occurrences of a recurring change that were due but stepped over (not run). */
  missed: number;
}

async function applyToFlag(deps: FlagWriteDeps, unit: UnitOfWork, row: ScheduleRow): Promise<void> {
  if (row.model_name !== FEATURE_FLAG_MODEL || !/^\d{1,10}$/.test(row.record_id)) throw new PermanentChangeError(FLAG_MISSING);
  const flagId = Number(row.record_id);
  // The creator comes with the claimed row; only a change whose creator is unknown reads the flag first (its creator acts).
  let actor = row.created_by;
  if (row.created_by_id === null) {
    const flag = await findFlag(unit.client, row.project_id, flagId);
    if (flag === null || flag.deleted) throw new PermanentChangeError(FLAG_MISSING);
    actor = flag.created_by_id === null ? null : await userSummaryById(unit.client, flag.created_by_id);
  }
  if (actor === null) throw new PermanentChangeError('User matching query does not exist.');
  try {
    await updateFlagById(deps, {
      projectId: row.project_id,
      flagId,
      viewer: { userId: actor.id, organizationLevel: null },
      actor,
      // Built against the flag as the write locked it.
      body: (flag) => {
        if (flag.deleted) throw new PermanentChangeError(FLAG_MISSING);
        return flagEditFor(flag, row.payload);
      },
      ifMatch: null,
      within: unit,
      trigger: { job_type: JOB_TYPE, job_id: String(row.id), payload: { scheduled_change_id: row.id } },
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) throw new PermanentChangeError(FLAG_MISSING);
    throw error;
  }
}

/** What a batch does once its changes ran: the one-time changes applied are marked in one statement. */
interface Batch {
  unit: UnitOfWork;
  now: Date;
  /** false: no savepoint per change; the first failure aborts the batch (runDue's caller runs it again with them). */
  savepoints: boolean;
  executed: number[];
  /** The events to raise once the batch's rows are up to date. */
  raised: { row: ScheduleRow; type: 'scheduled_change.applied' | 'scheduled_change.failed' }[];
}

/** A change of a batch run without savepoints failed: the batch is rolled back and run again with them. */
export class BatchNeedsSavepoints extends Error {
  constructor(readonly failure: unknown) {
    super('a scheduled change failed in a batch without savepoints');
  }
}

async function afterSuccess(batch: Batch, row: ScheduleRow): Promise<RunResult> {
  const { unit, now } = batch;
  if (!row.is_recurring) {
    batch.executed.push(row.id);
    return { id: row.id, outcome: 'applied', missed: 0 };
  }
  const next = nextRunAfter(row, row.scheduled_at, now);
  if (next.at === null || (row.end_date !== null && next.at.getTime() > row.end_date.getTime())) {
    await markExecuted(unit.client, row.id, now, true);
  } else {
    await advanceRecurring(unit.client, row.id, now, next.at);
  }
  return { id: row.id, outcome: 'applied', missed: next.missed };
}

async function afterFailure(batch: Batch, row: ScheduleRow, error: unknown): Promise<RunResult> {
  const { unit, now } = batch;
  const failure = storedFailure(error, row.failure_count + 1);
  const retryAt = failure.will_retry ? new Date(now.getTime() + retryDelayMs(failure.retry_count)) : null;
  await recordFailure(unit.client, row.id, JSON.stringify(failure), failure.will_retry ? null : now, retryAt);
  return { id: row.id, outcome: failure.will_retry ? 'retrying' : 'failed', missed: 0 };
}

/** The flag write, on a savepoint of its own when the batch keeps them: answers its error, or null. */
async function applyInBatch(deps: FlagWriteDeps, batch: Batch, row: ScheduleRow): Promise<unknown> {
  if (batch.savepoints) return onSavepoint(batch.unit, (inner) => applyToFlag(deps, inner, row));
  try {
    await applyToFlag(deps, batch.unit, row);
  } catch (error) {
    // A deadlock or serialization failure re-runs the whole unit as it is.
    throw isRetryableConflict(error) ? error : new BatchNeedsSavepoints(error);
  }
  return null;
}

async function runClaimed(deps: FlagWriteDeps, batch: Batch, row: ScheduleRow): Promise<RunResult> {
  const { unit, now } = batch;
  if (row.is_recurring && row.end_date !== null && row.end_date.getTime() <= now.getTime()) {
    await markExecuted(unit.client, row.id, now, false);
    return { id: row.id, outcome: 'ended', missed: 0 };
  }
  if (row.change_request_id !== null) {
    const request = await requestState(unit.client, row.change_request_id);
    if (request?.state !== 'approved') {
      // Not approved by its time: a pending request expires and the change is not made.
      if (request?.state === 'pending') await expireRequest(unit.client, row.change_request_id);
      const skipped = await afterSuccess(batch, row);
      return { ...skipped, outcome: 'skipped' };
    }
  }
  const error = await applyInBatch(deps, batch, row);
  if (error !== null) {
    const failed = await afterFailure(batch, row, error);
    if (failed.outcome === 'failed') {
      batch.raised.push({ row, type: 'scheduled_change.failed' });
      if (row.change_request_id !== null) await setState(unit.client, row.change_request_id, 'failed', { applyError: error instanceof Error ? error.message : String(error) });
    }
    return failed;
  }
  if (row.change_request_id !== null) await setState(unit.client, row.change_request_id, 'applied', { appliedById: row.created_by_id });
  batch.raised.push({ row, type: 'scheduled_change.applied' });
  return afterSuccess(batch, row);
}

/**
 * The next due changes at `now` (at most `batch`), committed together: one commit (and one bump of
 * the project's flag change counter) for many changes. With `savepoints`, each change runs on a
 * savepoint of its own and a failure is recorded on its row; without, the first failure throws
 * BatchNeedsSavepoints (the caller rolls the unit back and runs it again with them), which spares
 * two round trips per change when nothing fails. Empty when none is due.
 */
export async function runDue(deps: FlagWriteDeps, unit: UnitOfWork, now: Date, size: number, savepoints = true): Promise<RunResult[]> {
  const rows = await claimDue(unit.client, now, size);
  const batch: Batch = { unit, now, savepoints, executed: [], raised: [] };
  const results: RunResult[] = [];
  for (const row of rows) results.push(await runClaimed(deps, batch, row));
  await markAllExecuted(unit.client, batch.executed, now);
  for (const { row, type } of batch.raised) {
    await raiseEvent(unit, {
      type,
      projectId: row.project_id,
      actorId: row.created_by_id,
      object: async () => presentSchedule((await findSchedule(unit.client, row.project_id, row.id)) ?? row),
    });
  }
  return results;
}
