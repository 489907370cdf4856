/** The survey writes and the list query (the read of one survey is read-store.ts). */
import type { ReadHandle } from '../db/pool.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import { userSummarySql } from '../accounts/users/user-summary.ts';
import type { SurveyRecord } from './record.ts';

/** The columns a create or update writes. */
export type SurveyValues = Omit<
  SurveyRecord,
  'id' | 'project_id' | 'created_at' | 'created_by_id' | 'created_by' | 'updated_at' | 'headline_summary' | 'headline_response_count' | 'question_summaries'
>;

const JSON_COLUMNS = new Set(['questions', 'conditions', 'appearance', 'translations', 'form_content', 'response_sampling_daily_limits']);

/** The columns a create or update writes, in the order of the statements' parameters. */
export const SURVEY_VALUE_COLUMNS: readonly (keyof SurveyValues)[] = [
  'name',
  'description',
  'type',
  'schedule',
  'linked_flag_id',
  'linked_insight_id',
  'targeting_flag_id',
  'internal_targeting_flag_id',
  'internal_response_sampling_flag_id',
  'questions',
  'conditions',
  'appearance',
  'translations',
  'form_content',
  'start_date',
  'end_date',
  'archived',
  'responses_limit',
  'iteration_count',
  'iteration_frequency_days',
  'iteration_start_dates',
  'current_iteration',
  'current_iteration_start_date',
  'response_sampling_start_date',
  'response_sampling_interval_type',
  'response_sampling_interval',
  'response_sampling_limit',
  'response_sampling_daily_limits',
  'enable_partial_responses',
  'enable_iframe_embedding',
  'create_in_folder',
];

/** jsonb parameters go as text: node-postgres would turn a JS array into a PostgreSQL array. */
function params(values: SurveyValues): unknown[] {
  return SURVEY_VALUE_COLUMNS.map((column) => {
    const value = values[column];
    if (JSON_COLUMNS.has(column)) return value === undefined || value === null ? null : JSON.stringify(value);
    return value ?? null;
  });
}

const cast = (column: string) => (column === 'iteration_start_dates' ? '::timestamptz[]' : JSON_COLUMNS.has(column) ? '::jsonb' : '');

/** The row with its creator, as findSurvey reads it. */
const RETURNING = `RETURNING *, (SELECT ${userSummarySql('cu')} FROM users cu WHERE cu.id = created_by_id) AS created_by`;

export async function insertSurvey(
  db: WriteTx,
  id: string,
  projectId: number,
  userId: number | null,
  values: SurveyValues,
): Promise<SurveyRecord> {
  const placeholders = SURVEY_VALUE_COLUMNS.map((column, i) => `$${i + 1}${cast(column)}`);
  const n = SURVEY_VALUE_COLUMNS.length;
  const { rows } = await db.query<SurveyRecord>(
    `INSERT INTO surveys (${SURVEY_VALUE_COLUMNS.join(', ')}, id, project_id, created_by_id)
     VALUES (${placeholders.join(', ')}, $${n + 1}, $${n + 2}, $${n + 3})
     ${RETURNING}`,
    [...params(values), id, projectId, userId],
  );
  return rows[0];
}

export async function updateSurvey(db: WriteTx, id: string, values: SurveyValues): Promise<SurveyRecord> {
  const assignments = SURVEY_VALUE_COLUMNS.map((column, i) => `${column} = $${i + 1}${cast(column)}`);
  const { rows } = await db.query<SurveyRecord>(
    `UPDATE surveys SET ${assignments.join(', ')}, updated_at = now() WHERE id = $${SURVEY_VALUE_COLUMNS.length + 1} ${RETURNING}`,
    [...params(values), id],
  );
  return rows[0];
}

export async function deleteSurvey(db: WriteTx, id: string): Promise<void> {
  await db.query('DELETE FROM surveys WHERE id = $1', [id]);
}

/** Another survey of the project (not `exceptId`) holds this name. */
export async function surveyNameTaken(db: ReadHandle, projectId: number, name: string, exceptId: string | null): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM surveys WHERE project_id = $1 AND name = $2 AND ($3::uuid IS NULL OR id <> $3::uuid)',
    [projectId, name, exceptId],
  );
  return (rowCount ?? 0) > 0;
}

export interface SurveyListFilter {
  search?: string;
  archived?: boolean;
  limit: number;
  offset: number;
}

/** LIKE pattern for a literal substring. */
const likeLiteral = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of the project's surveys, newest first, and how many match in all. */
export async function listSurveys(db: ReadHandle, projectId: number, filter: SurveyListFilter): Promise<{ count: number; surveys: SurveyRecord[] }> {
  const args: unknown[] = [projectId];
  let where = 's.project_id = $1';
  if (filter.search !== undefined && filter.search !== '') {
    args.push(likeLiteral(filter.search));
    where += ` AND (s.name ILIKE $${args.length} OR s.description ILIKE $${args.length})`;
  }
  if (filter.archived !== undefined) {
    args.push(filter.archived);
    where += ` AND s.archived = $${args.length}`;
  }
  const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM surveys s WHERE ${where}`, args);
  const { rows } = await db.query<SurveyRecord>(
    `SELECT s.*, ${userSummarySql('cu')} AS created_by
       FROM surveys s LEFT JOIN users cu ON cu.id = s.created_by_id
      WHERE ${where}
      ORDER BY s.created_at DESC, s.id DESC
      LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
    [...args, filter.limit, filter.offset],
  );
  return { count: count.rows[0].n, surveys: rows };
}
