/**
 * Claims due scheduled changes and applies them, in one unit of work: the claim (a row lock,
 * other nodes skip it), the flag write through the flags writer (as the schedule's creator, the
 * activity entry naming the schedule as its trigger) and the row's bookkeeping commit together, so
 * a change is applied exactly once. A failed flag write is rolled back to a savepoint and the
 * failure is recorded on the same transaction (its effects are dropped with it).
 */
import { onSavepoint } from '../db/savepoint.ts';
import { userSummaryById } from '../accounts/users/user-by-id.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { findFlag } from '../flags/store.ts';
import { updateFlagById } from '../flags/update.ts';
import type { FlagWriteDeps } from '../flags/write-deps.ts';
import { PermanentChangeError, retryDelayMs, storedFailure } from './failure.ts';
import { flagEditFor } from './operations.ts';
import { nextRunAfter } from './recurrence.ts';
import { expireRequest, requestState, setState } from '../approvals/store.ts';
import { advanceRecurring, claimDue, markExecuted, recordFailure, type ScheduleRow } from './store.ts';

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
  const flag = await findFlag(unit.client, row.project_id, flagId, true);
  if (flag === null || flag.deleted) throw new PermanentChangeError(FLAG_MISSING);
  const body = flagEditFor(flag, row.payload);
  const creatorId = row.created_by_id ?? flag.created_by_id;
  const actor = creatorId === null ? null : await userSummaryById(unit.client, creatorId);
  if (actor === null) throw new PermanentChangeError('User matching query does not exist.');
  await updateFlagById(deps, {
    projectId: row.project_id,
    flagId,
    viewer: { userId: actor.id, organizationLevel: null },
    actor,
    body,
    ifMatch: null,
    within: unit,
    trigger: { job_type: JOB_TYPE, job_id: String(row.id), payload: { scheduled_change_id: row.id } },
  });
}

async function afterSuccess(unit: UnitOfWork, row: ScheduleRow, now: Date): Promise<RunResult> {
  if (!row.is_recurring) {
    await markExecuted(unit.client, row.id, now, false);
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

async function afterFailure(unit: UnitOfWork, row: ScheduleRow, now: Date, error: unknown): Promise<RunResult> {
  const failure = storedFailure(error, row.failure_count + 1);
  const retryAt = failure.will_retry ? new Date(now.getTime() + retryDelayMs(failure.retry_count)) : null;
  await recordFailure(unit.client, row.id, JSON.stringify(failure), failure.will_retry ? null : now, retryAt);
  return { id: row.id, outcome: failure.will_retry ? 'retrying' : 'failed', missed: 0 };
}

async function runClaimed(deps: FlagWriteDeps, unit: UnitOfWork, row: ScheduleRow, now: Date): Promise<RunResult> {
  if (row.is_recurring && row.end_date !== null && row.end_date.getTime() <= now.getTime()) {
    await markExecuted(unit.client, row.id, now, false);
    return { id: row.id, outcome: 'ended', missed: 0 };
  }
  if (row.change_request_id !== null) {
    const request = await requestState(unit.client, row.change_request_id);
    if (request?.state !== 'approved') {
      // Not approved by its time: a pending request expires and the change is not made.
      if (request?.state === 'pending') await expireRequest(unit.client, row.change_request_id);
      const skipped = await afterSuccess(unit, row, now);
      return { ...skipped, outcome: 'skipped' };
    }
  }
  const error = await onSavepoint(unit, (inner) => applyToFlag(deps, inner, row));
  if (error !== null) {
    const failed = await afterFailure(unit, row, now, error);
    if (row.change_request_id !== null && failed.outcome === 'failed') {
      await setState(unit.client, row.change_request_id, 'failed', { applyError: error instanceof Error ? error.message : String(error) });
    }
    return failed;
  }
  if (row.change_request_id !== null) await setState(unit.client, row.change_request_id, 'applied', { appliedById: row.created_by_id });
  return afterSuccess(unit, row, now);
}

/**
 * The next due changes at `now` (at most `batch`), each applied on its own savepoint (or its
 * failure recorded), committed together: one commit for many changes. Empty when none is due.
 */
export async function runDue(deps: FlagWriteDeps, unit: UnitOfWork, now: Date, batch: number): Promise<RunResult[]> {
  const rows = await claimDue(unit.client, now, batch);
  const results: RunResult[] = [];
  for (const row of rows) results.push(await runClaimed(deps, unit, row, now));
  return results;
}
