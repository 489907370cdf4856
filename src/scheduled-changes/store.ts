/** SQL of scheduled changes. */
import type { WriteTx } from '../db/unit-of-work.ts';
import type { ReadHandle } from '../db/pool.ts';
import { userSummarySql, type UserSummary } from '../accounts/users/user-summary.ts';
import type { RecurrenceInterval } from './recurrence.ts';

export interface ScheduleRow {
  /** bigint; the pool reads int8 as a number. */
  id: number;
  project_id: number;
  record_id: string;
  model_name: string;
  payload: unknown;
  scheduled_at: Date;
  executed_at: Date | null;
  failure_reason: string | null;
  failure_count: number;
  created_at: Date;
  created_by_id: number | null;
  created_by: UserSummary | null;
  updated_at: Date;
  is_recurring: boolean;
  recurrence_interval: RecurrenceInterval | null;
  cron_expression: string | null;
  last_executed_at: Date | null;
  end_date: Date | null;
  timezone: string | null;
  /** The approval request this change waits for (a policy covers it). */
  change_request_id: string | null;
}

/** The fields a create or an update writes. */
export interface ScheduleFields {
  record_id: string;
  model_name: string;
  payload: unknown;
  scheduled_at: Date;
  is_recurring: boolean;
  recurrence_interval: RecurrenceInterval | null;
  cron_expression: string | null;
  end_date: Date | null;
}

const SELECT = `SELECT s.*, ${userSummarySql('u')} AS created_by FROM scheduled_changes s LEFT JOIN users u ON u.id = s.created_by_id`;

export async function insertSchedule(db: WriteTx, projectId: number, userId: number, timezone: string, fields: ScheduleFields): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO scheduled_changes (project_id, record_id, model_name, payload, scheduled_at, is_recurring, recurrence_interval, cron_expression, end_date, created_by_id, timezone)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
    [projectId, fields.record_id, fields.model_name, JSON.stringify(fields.payload), fields.scheduled_at, fields.is_recurring, fields.recurrence_interval, fields.cron_expression, fields.end_date, userId, timezone],
  );
  return rows[0].id;
}

export async function updateScheduleFields(db: WriteTx, id: number, fields: ScheduleFields): Promise<void> {
  await db.query(
    `UPDATE scheduled_changes SET record_id = $2, payload = $3, scheduled_at = $4, is_recurring = $5, recurrence_interval = $6,
       cron_expression = $7, end_date = $8, retry_at = NULL, updated_at = now() WHERE id = $1`,
    [id, fields.record_id, JSON.stringify(fields.payload), fields.scheduled_at, fields.is_recurring, fields.recurrence_interval, fields.cron_expression, fields.end_date],
  );
}

export async function findSchedule(db: ReadHandle, projectId: number, id: number, forUpdate = false): Promise<ScheduleRow | null> {
  const { rows } = await db.query<ScheduleRow>(`${SELECT} WHERE s.project_id = $1 AND s.id = $2${forUpdate ? ' FOR UPDATE OF s' : ''}`, [projectId, id]);
  return rows[0] ?? null;
}

export interface ScheduleFilter {
  model_name?: string;
  record_id?: string;
}

export async function listSchedules(db: ReadHandle, projectId: number, filter: ScheduleFilter, limit: number, offset: number): Promise<{ count: number; rows: ScheduleRow[] }> {
  const where = ['s.project_id = $1'];
  const params: unknown[] = [projectId];
  if (filter.model_name !== undefined) where.push(`s.model_name = $${params.push(filter.model_name)}`);
  if (filter.record_id !== undefined) where.push(`s.record_id = $${params.push(filter.record_id)}`);
  const condition = where.join(' AND ');
  const count = await db.query<{ count: string }>(`SELECT count(*) FROM scheduled_changes s WHERE ${condition}`, params);
  const { rows } = await db.query<ScheduleRow>(`${SELECT} WHERE ${condition} ORDER BY s.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, limit, offset]);
  return { count: Number(count.rows[0].count), rows };
}

export async function deleteSchedule(db: WriteTx, projectId: number, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM scheduled_changes WHERE project_id = $1 AND id = $2', [projectId, id]);
  return (rowCount ?? 0) > 0;
}

export async function projectTimezone(db: ReadHandle, projectId: number): Promise<string> {
  const { rows } = await db.query<{ timezone: string }>('SELECT timezone FROM projects WHERE id = $1', [projectId]);
  return rows[0]?.timezone ?? 'UTC';
}

/**
 * Up to `limit` due rows, earliest first, locked for this transaction; rows other transactions hold are passed over. Paused
 * rows (not recurring but with a recurrence kept) never come due; a retried failure waits for its
 * `retry_at`. Each comes with its creator (`created_by`), who makes the change.
 */
export async function claimDue(db: WriteTx, now: Date, limit: number): Promise<ScheduleRow[]> {
  const { rows } = await db.query<ScheduleRow>(
    `SELECT s.*, ${userSummarySql('u')} AS created_by FROM scheduled_changes s LEFT JOIN users u ON u.id = s.created_by_id
      WHERE s.executed_at IS NULL AND s.scheduled_at <= $1 AND (s.retry_at IS NULL OR s.retry_at <= $1)
        AND (s.is_recurring OR (s.recurrence_interval IS NULL AND s.cron_expression IS NULL))
      ORDER BY s.scheduled_at, s.id LIMIT $2 FOR UPDATE OF s SKIP LOCKED`,
    [now, limit],
  );
  return rows;
}

/** A one-time change that ran, or any row that is finished. */
export async function markExecuted(db: WriteTx, id: number, now: Date, lastExecuted: boolean): Promise<void> {
  await db.query(
    `UPDATE scheduled_changes SET executed_at = $2, last_executed_at = CASE WHEN $3 THEN $2 ELSE last_executed_at END, retry_at = NULL, updated_at = now() WHERE id = $1`,
    [id, now, lastExecuted],
  );
}

/** One-time changes that ran, in one statement. */
export async function markAllExecuted(db: WriteTx, ids: readonly number[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.query(`UPDATE scheduled_changes SET executed_at = $2, retry_at = NULL, updated_at = now() WHERE id = ANY($1::bigint[])`, [ids, now]);
}

/** A recurring change that ran and runs again at `next`. */
export async function advanceRecurring(db: WriteTx, id: number, now: Date, next: Date): Promise<void> {
  await db.query(`UPDATE scheduled_changes SET scheduled_at = $3, last_executed_at = $2, retry_at = NULL, updated_at = now() WHERE id = $1`, [id, now, next]);
}

export async function recordFailure(db: WriteTx, id: number, failureReason: string, finishedAt: Date | null, retryAt: Date | null): Promise<void> {
  await db.query(
    `UPDATE scheduled_changes SET failure_count = failure_count + 1, failure_reason = $2, executed_at = $3, retry_at = $4, updated_at = now() WHERE id = $1`,
    [id, failureReason, finishedAt, retryAt],
  );
}

export async function bindRequest(db: WriteTx, id: number, requestId: string | null): Promise<void> {
  await db.query('UPDATE scheduled_changes SET change_request_id = $2 WHERE id = $1', [id, requestId]);
}
