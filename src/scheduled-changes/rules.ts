/**
 * Creating, changing and deleting scheduled changes: how the fields combine (checked on the row as
 * it would be stored, absent fields taken from the stored row on update) and that the target flag
 * is in the project. Each write is one unit of work.
 */
import type { Membership } from '../accounts/auth/principal.ts';
import type { UserSummary } from '../accounts/users/user-summary.ts';
import { jsonEqual } from '../accounts/activity/changes.ts';
import { gateSchedule } from '../approvals/schedule-gate.ts';
import { expireRequest, requestState } from '../approvals/store.ts';
import type { FlagEdit } from '../flags/gate.ts';
import { flagValuesOf, type FlagRecord } from '../flags/record.ts';
import type { FlagFilters } from '../targeting/types.ts';
import type { ReadHandle } from '../db/pool.ts';
import type { UnitsOfWork } from '../db/unit-of-work.ts';
import { findFlag } from '../flags/store.ts';
import { orNotFound, validationError } from '../kernel/errors.ts';
import { parseScheduleBody } from './body.ts';
import { flagEditFor, operationOf } from './operations.ts';
import { isFiveFieldCron, parseCron } from './recurrence.ts';
import { bindRequest, deleteSchedule, findSchedule, insertSchedule, projectTimezone, updateScheduleFields, type ScheduleFields, type ScheduleRow } from './store.ts';

function checkCombination(fields: ScheduleFields, creating: boolean): void {
  const { cron_expression: cron, recurrence_interval: interval } = fields;
  if (cron !== null && interval !== null) {
    throw validationError('Cannot set both cron_expression and recurrence_interval. Use one or the other.', 'cron_expression');
  }
  if (cron !== null) {
    if (!isFiveFieldCron(cron)) {
      throw validationError("Only standard 5-field cron expressions are supported (minute hour day month weekday). Example: '0 9 * * 1-5'.", 'cron_expression');
    }
    try {
      parseCron(cron, 'UTC');
    } catch {
      throw validationError("Invalid cron expression. Use standard 5-field cron syntax (e.g., '0 9 * * 1-5').", 'cron_expression');
    }
  }
  if (fields.is_recurring) {
    if (cron === null && interval === null) {
      throw validationError('Either recurrence_interval or cron_expression is required when is_recurring is true.', 'recurrence_interval');
    }
    if (operationOf(fields.payload) === 'add_release_condition') {
      throw validationError('Recurring schedules are not supported for add_release_condition because it appends conditions on each run, creating duplicates.', 'payload');
    }
  } else if (creating) {
    // On update a recurrence kept with is_recurring false is a paused schedule.
    if (interval !== null) throw validationError('Cannot set recurrence_interval when is_recurring is false for new schedules.', 'recurrence_interval');
    if (cron !== null) throw validationError('Cannot set cron_expression when is_recurring is false for new schedules.', 'cron_expression');
  }
  if (fields.end_date !== null && fields.end_date.getTime() <= fields.scheduled_at.getTime()) {
    throw validationError('End date must be after the scheduled start date.', 'end_date');
  }
}

/** The flag `record_id` names (`"007"` and `" 7"` name flag 7), or a 400 when the project has no such flag. */
async function targetFlag(db: ReadHandle, projectId: number, recordId: string): Promise<FlagRecord> {
  const id = /^\d{1,10}$/.test(recordId) ? Number(recordId) : null;
  const flag = id === null || id > 2147483647 ? null : await findFlag(db, projectId, id);
  if (flag === null || flag.deleted) throw validationError('Feature flag not found');
  return flag;
}

/** Who schedules: the change will be made as them, and approval policies look at them. */
export interface Scheduler {
  user: UserSummary;
  organizationLevel: Membership['level'] | null;
}

/** The flag edit the schedule would make now, as the approval gate sees it; null when the payload cannot be read (not gated). */
function scheduledEdit(projectId: number, flag: FlagRecord, payload: unknown, who: Scheduler): FlagEdit | null {
  let body;
  try {
    body = flagEditFor(flag, payload);
  } catch {
    return null;
  }
  const next = { ...flagValuesOf(flag) };
  if (body.active !== undefined) next.active = body.active;
  if (body.filters !== undefined) next.filters = body.filters as FlagFilters;
  return { projectId, before: flag, next, body, actor: who.user, organizationLevel: who.organizationLevel, httpMethod: 'PATCH' };
}

const TIMING_FIELDS = ['scheduled_at', 'cron_expression', 'recurrence_interval', 'end_date', 'is_recurring'] as const;

export async function createSchedule(units: UnitsOfWork, projectId: number, who: Scheduler, raw: Record<string, unknown>): Promise<ScheduleRow> {
  const body = parseScheduleBody(raw, false);
  const fields: ScheduleFields = {
    record_id: body.record_id!,
    model_name: body.model_name!,
    payload: body.payload,
    scheduled_at: body.scheduled_at!,
    is_recurring: body.is_recurring ?? false,
    recurrence_interval: body.recurrence_interval ?? null,
    cron_expression: body.cron_expression ?? null,
    end_date: body.end_date ?? null,
  };
  checkCombination(fields, true);
  return units.run(async ({ client }) => {
    const flag = await targetFlag(client, projectId, fields.record_id);
    fields.record_id = String(flag.id);
    const id = await insertSchedule(client, projectId, who.user.id, await projectTimezone(client, projectId), fields);
    const edit = scheduledEdit(projectId, flag, fields.payload, who);
    if (edit !== null) await bindRequest(client, id, await gateSchedule(client, edit, id, null));
    return (await findSchedule(client, projectId, id))!;
  });
}

const canonical = (recordId: string): string => (/^\d{1,10}$/.test(recordId) ? String(Number(recordId)) : recordId);

export async function updateSchedule(units: UnitsOfWork, projectId: number, who: Scheduler, id: number, raw: Record<string, unknown>, partial: boolean): Promise<ScheduleRow> {
  return units.run(async ({ client }) => {
    const stored = orNotFound(await findSchedule(client, projectId, id, true));
    const body = parseScheduleBody(raw, partial);
    if (body.record_id !== undefined && canonical(body.record_id) !== canonical(stored.record_id)) {
      throw validationError('Cannot change the target record of an existing scheduled change.', 'record_id');
    }
    if (body.model_name !== undefined && body.model_name !== stored.model_name) {
      throw validationError('Cannot change the model type of an existing scheduled change.', 'model_name');
    }
    if (stored.executed_at !== null && !stored.is_recurring) throw validationError('Cannot modify a scheduled change that has already executed.');
    const fields: ScheduleFields = {
      record_id: stored.record_id,
      model_name: stored.model_name,
      payload: body.payload !== undefined ? body.payload : stored.payload,
      scheduled_at: body.scheduled_at ?? stored.scheduled_at,
      is_recurring: body.is_recurring ?? stored.is_recurring,
      recurrence_interval: body.recurrence_interval !== undefined ? body.recurrence_interval : stored.recurrence_interval,
      cron_expression: body.cron_expression !== undefined ? body.cron_expression : stored.cron_expression,
      end_date: body.end_date !== undefined ? body.end_date : stored.end_date,
    };
    const bound = stored.change_request_id === null ? null : await requestState(client, stored.change_request_id);
    if (bound !== null && (bound.state === 'pending' || bound.state === 'approved')) {
      const changed = TIMING_FIELDS.find((field) => !jsonEqual(fields[field] instanceof Date ? (fields[field] as Date).toISOString() : fields[field], stored[field] instanceof Date ? (stored[field] as Date).toISOString() : stored[field]));
      if (changed !== undefined) {
        throw validationError('Cannot change the timing of a scheduled change while its approval request is pending or approved. Delete this schedule and create a new one to reschedule.', changed);
      }
    }
    checkCombination(fields, false);
    const flag = await targetFlag(client, projectId, fields.record_id);
    fields.record_id = String(flag.id);
    await updateScheduleFields(client, id, fields);
    if (body.payload !== undefined && !jsonEqual(body.payload, stored.payload)) {
      const edit = scheduledEdit(projectId, flag, fields.payload, who);
      const boundId = bound !== null && (bound.state === 'pending' || bound.state === 'approved') ? stored.change_request_id : null;
      if (edit !== null) await bindRequest(client, id, await gateSchedule(client, edit, id, boundId));
      else if (boundId !== null) {
        await expireRequest(client, boundId);
        await bindRequest(client, id, null);
      }
    }
    return (await findSchedule(client, projectId, id))!;
  }, { retry: true });
}

/** Its pending or approved request expires with it, so a later approval cannot apply it. */
export async function removeSchedule(units: UnitsOfWork, projectId: number, id: number): Promise<void> {
  await units.run(async ({ client }) => {
    const stored = orNotFound(await findSchedule(client, projectId, id, true));
    if (stored.change_request_id !== null) await expireRequest(client, stored.change_request_id);
    await deleteSchedule(client, projectId, id);
  });
}
