import type { ReadHandle } from '../db/pool.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import { userSummarySql, type UserSummary } from '../accounts/users/user-summary.ts';

export interface DashboardRecord {
  id: number;
  project_id: number;
  name: string;
  description: string;
  created_by: UserSummary | null;
  created_at: Date;
  deleted: boolean;
}

export interface InsightRecord {
  id: number;
  dashboard_id: number;
  name: string;
  kind: string;
  query: unknown;
  created_at: Date;
}

const SELECT_DASHBOARD = `SELECT d.id, d.project_id, d.name, d.description, ${userSummarySql('u')} AS created_by, d.created_at, d.deleted
    FROM dashboards d LEFT JOIN users u ON u.id = d.created_by_id`;

export async function listDashboards(db: ReadHandle, projectId: number, limit: number, offset: number): Promise<{ count: number; rows: DashboardRecord[] }> {
  const total = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM dashboards WHERE project_id = $1 AND NOT deleted', [projectId]);
  const { rows } = await db.query<DashboardRecord>(
    `${SELECT_DASHBOARD} WHERE d.project_id = $1 AND NOT d.deleted ORDER BY d.id LIMIT $2 OFFSET $3`,
    [projectId, limit, offset],
  );
  return { count: total.rows[0].n, rows };
}

/** A live dashboard of the project. */
export async function findDashboard(db: ReadHandle, projectId: number, id: number): Promise<DashboardRecord | null> {
  const { rows } = await db.query<DashboardRecord>(`${SELECT_DASHBOARD} WHERE d.project_id = $1 AND d.id = $2 AND NOT d.deleted`, [projectId, id]);
  return rows[0] ?? null;
}

export async function dashboardInsights(db: ReadHandle, dashboardId: number): Promise<InsightRecord[]> {
  const { rows } = await db.query<InsightRecord>(
    'SELECT id, dashboard_id, name, kind, query, created_at FROM insights WHERE dashboard_id = $1 ORDER BY id',
    [dashboardId],
  );
  return rows;
}

export async function insertDashboard(db: WriteTx, projectId: number, name: string, userId: number | null): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    'INSERT INTO dashboards (project_id, name, created_by_id) VALUES ($1, $2, $3) RETURNING id',
    [projectId, name, userId],
  );
  return rows[0].id;
}

/** Creates the insight, or rewrites the query of the dashboard's insight of that name. */
export async function upsertInsight(
  db: WriteTx,
  projectId: number,
  dashboardId: number,
  insight: { name: string; kind: string; query: unknown },
): Promise<void> {
  await db.query(
    `INSERT INTO insights (project_id, dashboard_id, name, kind, query) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (dashboard_id, name) DO UPDATE SET kind = EXCLUDED.kind, query = EXCLUDED.query
       WHERE insights.kind IS DISTINCT FROM EXCLUDED.kind OR insights.query IS DISTINCT FROM EXCLUDED.query`,
    [projectId, dashboardId, insight.name, insight.kind, JSON.stringify(insight.query)],
  );
}

export async function insightNames(db: ReadHandle, dashboardId: number): Promise<Set<string>> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM insights WHERE dashboard_id = $1', [dashboardId]);
  return new Set(rows.map((row) => row.name));
}

// ---------------------------------------------------------------------------------------------
// Trends over `events`

export interface TrendRowsQuery {
  projectId: number;
  event: string;
  math: 'total' | 'dau';
  /** Exact matches on event properties (any of the values). */
  properties: Array<{ key: string; values: string[] }>;
  breakdown: string | null;
  from: Date;
  to: Date;
}

export interface TrendRow {
  day: string;
  breakdown: string | null;
  value: number;
}

/** A string as an SQL literal (standard_conforming_strings: only quotes need doubling). */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * Counts per UTC day and breakdown value. Event names and property keys are written as literals so
 * that PostgreSQL can match the partial expression index on `$feature_flag_called` events
 * (`events_flag_called_idx`: `properties->>'$feature_flag'`); values stay parameters.
 */
export async function trendRows(db: ReadHandle, query: TrendRowsQuery): Promise<TrendRow[]> {
  const params: unknown[] = [query.projectId, query.from, query.to];
  const where = [`e.project_id = $1`, `e.event = ${literal(query.event)}`, 'e.timestamp >= $2', 'e.timestamp < $3'];
  for (const property of query.properties) {
    params.push(property.values);
    where.push(`(e.properties->>${literal(property.key)}) = ANY($${params.length}::text[])`);
  }
  const breakdown = query.breakdown === null ? 'NULL::text' : `(e.properties->>${literal(query.breakdown)})`;
  const value = query.math === 'dau' ? 'count(DISTINCT COALESCE(e.person_id::text, e.distinct_id))' : 'count(*)';
  const { rows } = await db.query<TrendRow>(
    `SELECT to_char((e.timestamp AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, ${breakdown} AS breakdown, ${value}::int AS value
       FROM events e
      WHERE ${where.join(' AND ')}
      GROUP BY 1, 2`,
    params,
  );
  return rows;
}
