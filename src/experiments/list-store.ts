/** The filtered, ordered page of a project's experiments. */
import type { ReadHandle } from '../db/pool.ts';
import { EXPERIMENT_FROM, EXPERIMENT_SELECT } from './store.ts';
import type { ExperimentRecord } from './record.ts';

export interface ExperimentListFilter {
  status?: string;
  /** undefined: not archived only. */
  archived?: boolean;
  createdByIds?: number[];
  search?: string;
  featureFlagId?: number;
  order?: string;
  limit: number;
  offset: number;
}

const STATUS_RANK = `CASE WHEN e.start_date IS NULL THEN 0 WHEN e.end_date IS NULL THEN 1 ELSE 2 END`;
const DURATION = `CASE WHEN e.start_date IS NULL THEN NULL ELSE coalesce(e.end_date, now()) - e.start_date END`;
const ORDER_COLUMNS: Record<string, string> = {
  id: 'e.id',
  name: 'e.name',
  created_at: 'e.created_at',
  updated_at: 'e.updated_at',
  start_date: 'e.start_date',
  end_date: 'e.end_date',
  duration: DURATION,
  status: STATUS_RANK,
};

/** `order`: a field (or `-field`); unknown fields fall back to newest first. */
function orderBy(order: string | undefined): string {
  const descending = order?.startsWith('-') ?? true;
  const column = order === undefined ? undefined : ORDER_COLUMNS[order.replace(/^-/, '')];
  if (column === undefined) return 'e.created_at DESC, e.id DESC';
  return `${column} ${descending ? 'DESC' : 'ASC'} NULLS LAST, e.id DESC`;
}

export async function listExperiments(db: ReadHandle, projectId: number, filter: ExperimentListFilter): Promise<{ count: number; rows: ExperimentRecord[] }> {
  const params: unknown[] = [projectId];
  const where = ['e.project_id = $1', 'NOT e.deleted'];
  const add = (value: unknown) => `$${params.push(value)}`;
  switch (filter.status) {
    case 'draft':
      where.push('e.start_date IS NULL');
      break;
    case 'running':
      where.push('e.start_date IS NOT NULL AND e.end_date IS NULL AND f.active');
      break;
    case 'paused':
      where.push('e.start_date IS NOT NULL AND e.end_date IS NULL AND NOT f.active');
      break;
    case 'complete':
    case 'stopped':
      where.push('e.end_date IS NOT NULL');
      break;
  }
  where.push(filter.archived === true ? 'e.archived' : 'NOT e.archived');
  if (filter.createdByIds && filter.createdByIds.length > 0) where.push(`e.created_by_id = ANY(${add(filter.createdByIds)}::int[])`);
  if (filter.search) where.push(`e.name ILIKE ${add(`%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`);
  if (filter.featureFlagId !== undefined) where.push(`e.feature_flag_id = ${add(filter.featureFlagId)}`);
  const from = `${EXPERIMENT_FROM} JOIN feature_flags f ON f.id = e.feature_flag_id`;
  const condition = where.join(' AND ');
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${from} WHERE ${condition}`, params);
  const { rows } = await db.query<ExperimentRecord>(
    `SELECT ${EXPERIMENT_SELECT} FROM ${from} WHERE ${condition}
      ORDER BY ${orderBy(filter.order)} LIMIT ${add(filter.limit)} OFFSET ${add(filter.offset)}`,
    params,
  );
  return { count: total.rows[0].n, rows };
}
