/** The experiment writes and reads (the list query is list-store.ts). */
import type { WriteTx } from '../db/unit-of-work.ts';
import type { ReadHandle } from '../db/pool.ts';
import { userSummarySql } from '../accounts/users/user-summary.ts';
import { EXPERIMENT_VALUE_COLUMNS, type ExperimentRecord, type ExperimentValues } from './record.ts';

const JSON_COLUMNS = new Set<string>([
  'parameters',
  'filters',
  'secondary_metrics',
  'exposure_criteria',
  'metrics',
  'metrics_secondary',
  'stats_config',
  'primary_metrics_ordered_uuids',
  'secondary_metrics_ordered_uuids',
  'scheduling_config',
  'excluded_variants',
]);

/** jsonb parameters go as text: node-postgres would turn a JS array into a PostgreSQL array. */
function params(values: ExperimentValues): unknown[] {
  return EXPERIMENT_VALUE_COLUMNS.map((column) => {
    const value = values[column];
    if (JSON_COLUMNS.has(column)) return value === null ? null : JSON.stringify(value);
    return value;
  });
}

const cast = (column: string) => (JSON_COLUMNS.has(column) ? '::jsonb' : '');

/** The row with its creator. */
export const EXPERIMENT_SELECT = `e.*, ${userSummarySql('cu')} AS created_by`;
export const EXPERIMENT_FROM = 'experiments e LEFT JOIN users cu ON cu.id = e.created_by_id';
const RETURNING = `RETURNING *, (SELECT ${userSummarySql('cu')} FROM users cu WHERE cu.id = created_by_id) AS created_by`;

export async function insertExperiment(db: WriteTx, projectId: number, userId: number | null, values: ExperimentValues): Promise<ExperimentRecord> {
  const placeholders = EXPERIMENT_VALUE_COLUMNS.map((column, i) => `$${i + 1}${cast(column)}`);
  const n = EXPERIMENT_VALUE_COLUMNS.length;
  const { rows } = await db.query<ExperimentRecord>(
    `INSERT INTO experiments (${EXPERIMENT_VALUE_COLUMNS.join(', ')}, project_id, created_by_id)
     VALUES (${placeholders.join(', ')}, $${n + 1}, $${n + 2})
     ${RETURNING}`,
    [...params(values), projectId, userId],
  );
  return rows[0];
}

/** Writes every value column; `newGeneration` marks the ingestion-time state as rebuilt. */
export async function updateExperiment(db: WriteTx, id: number, values: ExperimentValues, newGeneration: boolean): Promise<ExperimentRecord> {
  const sets = EXPERIMENT_VALUE_COLUMNS.map((column, i) => `${column} = $${i + 1}${cast(column)}`);
  const n = EXPERIMENT_VALUE_COLUMNS.length;
  const { rows } = await db.query<ExperimentRecord>(
    `UPDATE experiments SET ${sets.join(', ')}, updated_at = now(),
            state_generation = state_generation + $${n + 2}
      WHERE id = $${n + 1}
     ${RETURNING}`,
    [...params(values), id, newGeneration ? 1 : 0],
  );
  return rows[0];
}

/** One experiment of the project; `lock` holds its row for the caller's transaction. Deleted rows only with `includeDeleted`. */
export async function findExperiment(
  db: ReadHandle,
  projectId: number,
  id: number,
  options: { lock?: boolean; includeDeleted?: boolean } = {},
): Promise<ExperimentRecord | null> {
  const { rows } = await db.query<ExperimentRecord>(
    `SELECT ${EXPERIMENT_SELECT} FROM ${EXPERIMENT_FROM}
      WHERE e.project_id = $1 AND e.id = $2 ${options.includeDeleted ? '' : 'AND NOT e.deleted'}
      ${options.lock ? 'FOR UPDATE OF e' : ''}`,
    [projectId, id],
  );
  return rows[0] ?? null;
}

/** Names of the project's live experiments starting with `prefix` (duplicate's "(Copy) n"). */
export async function liveNamesStartingWith(db: ReadHandle, projectId: number, prefix: string): Promise<Set<string>> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT name FROM experiments WHERE project_id = $1 AND NOT deleted AND left(name, length($2)) = $2`,
    [projectId, prefix],
  );
  return new Set(rows.map((row) => row.name));
}

/** Ids of the live experiments using each of these flags. */
export async function experimentsOfFlags(db: ReadHandle, projectId: number, flagIds: number[]): Promise<Map<number, number[]>> {
  const { rows } = await db.query<{ feature_flag_id: number; id: number }>(
    `SELECT feature_flag_id, id FROM experiments WHERE project_id = $1 AND NOT deleted AND feature_flag_id = ANY($2::int[]) ORDER BY id`,
    [projectId, flagIds],
  );
  const result = new Map<number, number[]>();
  for (const row of rows) result.set(row.feature_flag_id, [...(result.get(row.feature_flag_id) ?? []), row.id]);
  return result;
}
