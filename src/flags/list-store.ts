import type { Queryable } from '../db/pool.ts';
import type { FlagListFilter } from './list-filter.ts';
import type { FlagRecord } from './record.ts';
import { FLAG_COLUMNS, FLAG_JOINS } from './store.ts';
import type { FlagFilters } from './types.ts';

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The list's WHERE clause: live flags of the project that no survey owns, narrowed by the filter. */
function whereClause(projectId: number, filter: FlagListFilter, staleIds: number[] | null): { sql: string; params: unknown[] } {
  const params: unknown[] = [projectId];
  const clauses = ['f.project_id = $1', 'NOT f.deleted', 'NOT f.owned_by_survey'];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.active !== undefined) clauses.push(filter.active ? 'f.active' : 'NOT f.active');
  if (staleIds !== null) clauses.push(`f.id = ANY(${add(staleIds)}::int[])`);
  if (filter.createdById !== undefined) clauses.push(`f.created_by_id = ${add(filter.createdById)}`);
  if (filter.evaluationRuntimes) clauses.push(`f.evaluation_runtime = ANY(${add(filter.evaluationRuntimes)}::text[])`);
  if (filter.excludedKeys.length > 0) clauses.push(`NOT (f.key = ANY(${add(filter.excludedKeys)}::text[]))`);
  if (filter.hasEvaluationTags !== undefined) {
    clauses.push(filter.hasEvaluationTags ? 'cardinality(f.evaluation_tags) > 0' : 'cardinality(f.evaluation_tags) = 0');
  }
  if (filter.search) {
    const pattern = add(`%${escapeLike(filter.search)}%`);
    clauses.push(`(f.key ILIKE ${pattern} OR f.name ILIKE ${pattern})`);
  }
  if (filter.tags.length > 0) clauses.push(`f.tags && ${add(filter.tags)}::text[]`);
  const variantCount = `jsonb_array_length(CASE WHEN jsonb_typeof(f.filters->'multivariate'->'variants') = 'array'
                          THEN f.filters->'multivariate'->'variants' ELSE '[]'::jsonb END)`;
  if (filter.type === 'boolean') clauses.push(`${variantCount} = 0`);
  if (filter.type === 'multivariant') clauses.push(`${variantCount} > 0`);
  // No experiments exist in Bellwether, so no flag is an experiment's.
  if (filter.type === 'experiment') clauses.push('false');
  if (filter.type === 'remote_config') clauses.push('f.is_remote_configuration IS TRUE');
  return { sql: clauses.join(' AND '), params };
}

export interface StatusCandidate {
  id: number;
  deleted: boolean;
  active: boolean;
  filters: FlagFilters;
  created_at: Date;
  last_called_at: Date | null;
}

/** Flags old enough, or idle long enough, that their status could be stale or inactive. */
export async function staleCandidates(db: Queryable, projectId: number, thresholdDays: number): Promise<StatusCandidate[]> {
  const { rows } = await db.query<StatusCandidate>(
    `SELECT id, deleted, active, filters, created_at, last_called_at FROM feature_flags
      WHERE project_id = $1 AND NOT deleted AND NOT owned_by_survey
        AND (created_at < now() - make_interval(days => $2) OR last_called_at < now() - make_interval(days => $2))`,
    [projectId, thresholdDays],
  );
  return rows;
}

export async function listFlags(
  db: Queryable,
  projectId: number,
  filter: FlagListFilter,
  staleIds: number[] | null,
  page: { limit: number; offset: number },
): Promise<{ count: number; flags: FlagRecord[] }> {
  const where = whereClause(projectId, filter, staleIds);
  const direction = filter.order.descending ? 'DESC' : 'ASC';
  const nulls = filter.order.descending ? 'NULLS LAST' : 'NULLS FIRST';
  const n = where.params.length;
  // Page the ids first, so that user summaries and dashboard links are built for one page only.
  const { rows } = await db.query<FlagRecord & { total_count: number }>(
    `WITH page AS (
       SELECT f.id, count(*) OVER () AS total_count,
              row_number() OVER (ORDER BY f.${filter.order.column} ${direction} ${nulls}, f.id ${direction}) AS position
         FROM feature_flags f
        WHERE ${where.sql}
        ORDER BY position
        LIMIT $${n + 1} OFFSET $${n + 2})
     SELECT ${FLAG_COLUMNS}, page.total_count
       FROM page JOIN feature_flags f ON f.id = page.id ${FLAG_JOINS}
      ORDER BY page.position`,
    [...where.params, page.limit, page.offset],
  );
  if (rows.length > 0 || page.offset === 0) return { count: rows[0]?.total_count ?? 0, flags: rows };
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM feature_flags f WHERE ${where.sql}`, where.params);
  return { count: total.rows[0].n, flags: [] };
}
