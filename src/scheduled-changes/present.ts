import type { Static } from 'typebox';
import { isoUtc } from '../kernel/time.ts';
import { failureText } from './failure.ts';
import type { ScheduleResponse } from './schemas.ts';
import type { ScheduleRow } from './store.ts';

export function presentSchedule(row: ScheduleRow): Static<typeof ScheduleResponse> {
  return {
    id: row.id,
    team_id: row.project_id,
    record_id: row.record_id,
    model_name: row.model_name,
    payload: row.payload,
    scheduled_at: isoUtc(row.scheduled_at),
    executed_at: isoUtc(row.executed_at),
    failure_reason: failureText(row.failure_reason),
    created_at: isoUtc(row.created_at),
    created_by: row.created_by,
    updated_at: isoUtc(row.updated_at),
    is_recurring: row.is_recurring,
    recurrence_interval: row.recurrence_interval,
    cron_expression: row.cron_expression,
    last_executed_at: isoUtc(row.last_executed_at),
    end_date: isoUtc(row.end_date),
    timezone: row.timezone,
  };
}
