/**
 * Creating, changing and deleting scheduled changes: how the fields combine (checked on the row as
 * it would be stored, absent fields taken from the stored row on update) and that the target flag
 * is in the project. Each write is one unit of work.
 */
import type { UserSummary } from '../accounts/users/user-summary.ts';
import type { Queryable } from '../db/pool.ts';
import type { UnitsOfWork } from '../db/unit-of-work.ts';
import { findFlag } from '../flags/store.ts';
import { notFound, validationError } from '../kernel/errors.ts';
import { parseScheduleBody } from './body.ts';
import { operationOf } from './operations.ts';
import { isFiveFieldCron, parseCron } from './recurrence.ts';
import { deleteSchedule, findSchedule, insertSchedule, projectTimezone, updateScheduleFields, type ScheduleFields, type ScheduleRow } from './store.ts';

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

/** The flag's id as stored (`"007"` and `" 7"` name flag 7), or a 400 when the project has no such flag. */
async function canonicalFlagId(db: Queryable, projectId: number, recordId: string): Promise<string> {
  const id = /^\d{1,10}$/.test(recordId) ? Number(recordId) : null;
  const flag = id === null || id > 2147483647 ? null : await findFlag(db, projectId, id);
  if (flag === null || flag.deleted) throw validationError('Feature flag not found');
  return String(flag.id);
}

export async function createSchedule(units: UnitsOfWork, projectId: number, user: UserSummary, raw: Record<string, unknown>): Promise<ScheduleRow> {
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
    fields.record_id = await canonicalFlagId(client, projectId, fields.record_id);
    const id = await insertSchedule(client, projectId, user.id, await projectTimezone(client, projectId), fields);
    return (await findSchedule(client, projectId, id))!;
  });
}

const canonical = (recordId: string) => (/^\d{1,10}$/.test(recordId) ? String(Number(recordId)) : recordId);

export async function updateSchedule(units: UnitsOfWork, projectId: number, id: number, raw: Record<string, unknown>, partial: boolean): Promise<ScheduleRow> {
  return units.run(async ({ client }) => {
    const stored = await findSchedule(client, projectId, id, true);
    if (stored === null) throw notFound();
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
    checkCombination(fields, false);
    fields.record_id = await canonicalFlagId(client, projectId, fields.record_id);
    await updateScheduleFields(client, id, fields);
    return (await findSchedule(client, projectId, id))!;
  }, { retry: true });
}

export async function removeSchedule(units: UnitsOfWork, projectId: number, id: number): Promise<void> {
  const deleted = await units.run(({ client }) => deleteSchedule(client, projectId, id));
  if (!deleted) throw notFound();
}
