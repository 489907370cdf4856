import type { ReadHandle } from '../db/pool.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import { userSummarySql } from '../accounts/users/user-summary.ts';
import type { FlagRecord, FlagValues } from './record.ts';
import type { FlagFilters } from '../targeting/types.ts';
import { BUMP_SQL } from './change-store.ts';

/** The columns of a FlagRecord, over `feature_flags f` joined by FLAG_JOINS. */
/**
 * The experiments using flag `flag` (an alias of feature_flags): the ids of the live ones (PostHog's
 * `experiment_set`, also what refuses deleting the flag) and whether any exists, deleted ones too
 * (the list's `type=experiment`). The experiments area's writes read the flag back when these move.
 */
const experimentColumns = (flag: string) => `COALESCE((SELECT array_agg(e.id ORDER BY e.id) FROM experiments e
             WHERE e.feature_flag_id = ${flag}.id AND NOT e.deleted), '{}') AS experiment_set,
  EXISTS (SELECT 1 FROM experiments e WHERE e.feature_flag_id = ${flag}.id) AS has_experiment`;

export const FLAG_COLUMNS = `f.*, ${userSummarySql('cu')} AS created_by, ${userSummarySql('mu')} AS last_modified_by,
  COALESCE((SELECT array_agg(l.dashboard_id ORDER BY l.dashboard_id) FROM feature_flag_dashboards l
             WHERE l.feature_flag_id = f.id), '{}') AS analytics_dashboards,
  ${experimentColumns('f')}`;
export const FLAG_JOINS = `LEFT JOIN users cu ON cu.id = f.created_by_id
  LEFT JOIN users mu ON mu.id = f.last_modified_by_id`;
const SELECT_FLAG = `SELECT ${FLAG_COLUMNS} FROM feature_flags f ${FLAG_JOINS}`;

/** jsonb parameters go as text: node-postgres would turn a JS array into a PostgreSQL array. */
const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

export async function findFlag(db: ReadHandle, projectId: number, id: number, forUpdate = false): Promise<FlagRecord | null> {
  const lock = forUpdate ? ' FOR UPDATE OF f' : '';
  const { rows } = await db.query<FlagRecord>(`${SELECT_FLAG} WHERE f.project_id = $1 AND f.id = $2${lock}`, [projectId, id]);
  return rows[0] ?? null;
}

/** The project's flags with these ids, deleted ones included. */
export async function flagsByIds(db: ReadHandle, projectId: number, ids: readonly number[]): Promise<FlagRecord[]> {
  const { rows } = await db.query<FlagRecord>(`${SELECT_FLAG} WHERE f.project_id = $1 AND f.id = ANY($2::int[])`, [projectId, ids]);
  return rows;
}

/** Every flag of the project, deleted ones included. */
export async function projectFlags(db: ReadHandle, projectId: number): Promise<FlagRecord[]> {
  const { rows } = await db.query<FlagRecord>(`${SELECT_FLAG} WHERE f.project_id = $1`, [projectId]);
  return rows;
}

/**
 * The `last_called_at` of these projects' flags written after `since` (database clock), and the
 * database's clock now, for the next look.
 */
export async function lastCalledWrittenSince(
  db: ReadHandle,
  projectIds: readonly number[],
  since: Date,
): Promise<{ now: Date; flags: { project_id: number; id: number; last_called_at: Date }[] }> {
  const { rows } = await db.query<{ now: Date; project_id: number | null; id: number | null; last_called_at: Date | null }>(
    `SELECT now() AS now, f.project_id, f.id, f.last_called_at
       FROM (SELECT 1) AS one
       LEFT JOIN feature_flags f ON f.project_id = ANY($1::int[]) AND f.last_called_written_at > $2 AND f.last_called_at IS NOT NULL`,
    [projectIds, since],
  );
  const flags = rows.flatMap((row) =>
    row.id === null || row.project_id === null || row.last_called_at === null ? [] : [{ project_id: row.project_id, id: row.id, last_called_at: row.last_called_at }],
  );
  return { now: rows[0].now, flags };
}

/**
 * Takes the project's live-flag lock (held until the transaction ends, so that writes adding a live
 * flag to one project run one after the other) and then reads its live flags' number, in one round
 * trip. The number is kept by PostgreSQL (flag_live_counts, migration 060) so that a create costs
 * the same at 10 flags as at 10 000. Two statements, so that the read's snapshot is taken once the
 * lock is held: it sees every flag committed by the writer waited for.
 *
 * The count's row is locked here (FOR UPDATE), before the insert bumps the change counter: a soft
 * delete or restore moves the count (its trigger) before its own bump at the end, so both take the
 * count's row first and the counter's second, and never wait for each other in a circle.
 */
export async function lockAndCountLiveFlags(db: WriteTx, projectId: number): Promise<number> {
  // Only an integer checked here is written into the text: a parameterised statement must travel alone.
  if (!Number.isSafeInteger(projectId)) throw new Error(`not a project id: ${projectId}`);
  const results = (await db.query(
    `SELECT pg_advisory_xact_lock(727020, ${projectId}); ` +
      `SELECT live AS n FROM flag_live_counts WHERE project_id = ${projectId} FOR UPDATE`,
  )) as unknown as { rows: { n: number }[] }[];
  return results[1].rows[0]?.n ?? 0;
}

/** A live flag other than `exceptId` holding `key` in the project. */
export async function liveKeyTaken(db: ReadHandle, projectId: number, key: string, exceptId: number | null): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM feature_flags WHERE project_id = $1 AND key = $2 AND NOT deleted AND id <> $3',
    [projectId, key, exceptId ?? -1],
  );
  return (rowCount ?? 0) > 0;
}

/** The id of the live flag holding `key` in the project, if any. */
export async function liveFlagIdByKey(db: ReadHandle, projectId: number, key: string): Promise<number | undefined> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM feature_flags WHERE project_id = $1 AND key = $2 AND NOT deleted', [projectId, key]);
  return rows[0]?.id;
}

export async function existingDashboardIds(db: ReadHandle, projectId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ id: number }>(
    'SELECT id FROM dashboards WHERE project_id = $1 AND id = ANY($2::int[]) AND NOT deleted',
    [projectId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** Links only ever get added (PostHog's analytics_dashboards semantics). */
export async function linkDashboards(db: WriteTx, flagId: number, dashboardIds: number[]): Promise<void> {
  if (dashboardIds.length === 0) return;
  await db.query(
    `INSERT INTO feature_flag_dashboards (feature_flag_id, dashboard_id)
     SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING`,
    [flagId, dashboardIds],
  );
}

function valueParams(v: FlagValues): unknown[] {
  return [
    v.key,
    v.name,
    json(v.filters),
    v.deleted,
    v.active,
    v.archived,
    v.created_at,
    v.ensure_experience_continuity,
    json(v.rollback_conditions),
    v.performed_rollback,
    v.tags,
    v.evaluation_tags,
    v.has_enriched_analytics,
    v.creation_context,
    v.is_remote_configuration,
    v.has_encrypted_payloads,
    v.evaluation_runtime,
    v.bucketing_identifier,
    v.last_called_at,
    v.create_in_folder,
    v.should_create_usage_dashboard,
  ];
}

const VALUE_COLUMNS = `key, name, filters, deleted, active, archived, created_at, ensure_experience_continuity, rollback_conditions,
  performed_rollback, tags, evaluation_tags, has_enriched_analytics, creation_context, is_remote_configuration,
  has_encrypted_payloads, evaluation_runtime, bucketing_identifier, last_called_at, create_in_folder,
  should_create_usage_dashboard`;

/** The row as written, without the joined fields a FlagRecord adds. */
export type FlagRow = Omit<FlagRecord, 'created_by' | 'last_modified_by' | 'analytics_dashboards'>;

/** A usage-dashboard insight to create with the flag. */
export interface InsightDraftRow {
  name: string;
  kind: string;
  query: unknown;
}

/**
 * Inserts the flag and, when `usageInsights` is given, its usage dashboard holding those insights,
 * in one statement. `ownedBySurvey` marks a flag a survey manages (targeting, internal, sampling).
 *
 * The same statement bumps the project's flag change counter and writes the new flag with that
 * count (`change_seq`), so that no later statement updates the row just written to stamp it: the
 * caller commits it as stamped (`commitFlagWrite`'s `stamped`). The counter's row lock is then
 * held from here to COMMIT; a create already holds the project's live-flag lock that long.
 * A named statement: its text never changes, so it is parsed and planned once per connection.
 */
export async function insertFlag(
  db: WriteTx,
  projectId: number,
  userId: number | null,
  values: FlagValues,
  usageInsights: InsightDraftRow[] | null,
  ownedBySurvey = false,
): Promise<FlagRow> {
  const params = [...valueParams(values), ownedBySurvey, projectId, userId, usageInsights !== null, JSON.stringify(usageInsights ?? [])];
  const n = params.length;
  const [project, user, withDashboard, insights] = [n - 3, n - 2, n - 1, n].map((i) => `$${i}`);
  const placeholders = params.slice(0, n - 2).map((_, i) => `$${i + 1}`);
  const { rows } = await db.query<FlagRow>({
    name: 'bellwether-insert-flag',
    text: `WITH bump AS (
       ${BUMP_SQL(project)}),
     dashboard AS (
       INSERT INTO dashboards (project_id, name, created_by_id)
       SELECT ${project}, 'Generated Dashboard: ' || $1 || ' Usage', ${user} WHERE ${withDashboard}::boolean
       RETURNING id),
     usage_insights AS (
       INSERT INTO insights (project_id, dashboard_id, name, kind, query)
       SELECT ${project}, dashboard.id, i.name, i.kind, i.query
         FROM dashboard, jsonb_to_recordset(${insights}::jsonb) AS i(name text, kind text, query jsonb))
     INSERT INTO feature_flags (${VALUE_COLUMNS}, owned_by_survey, project_id, created_by_id, last_modified_by_id, version, usage_dashboard_id, change_seq)
     VALUES (${placeholders.join(', ')}, ${user}, 1, (SELECT id FROM dashboard), (SELECT counter FROM bump))
     RETURNING *, '{}'::int[] AS experiment_set, false AS has_experiment`,
    values: params,
  });
  return rows[0];
}

export async function updateFlag(db: WriteTx, id: number, userId: number | null, values: FlagValues): Promise<FlagRow> {
  const params = valueParams(values);
  const assignments = VALUE_COLUMNS.split(',').map((column, i) => `${column.trim()} = $${i + 1}`);
  const { rows } = await db.query<FlagRow>(
    `UPDATE feature_flags f SET ${assignments.join(', ')}, version = version + 1, updated_at = now(),
            last_modified_by_id = $${params.length + 1}
      WHERE id = $${params.length + 2}
      RETURNING *, ${experimentColumns('f')}`,
    [...params, userId, id],
  );
  return rows[0];
}

export interface FlagSummaryRow {
  id: number;
  key: string;
  name: string;
  active: boolean;
  filters: FlagFilters;
}

/** Live flags of the project with these ids. */
export async function liveFlagsByIds(db: ReadHandle, projectId: number, ids: number[]): Promise<FlagSummaryRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<FlagSummaryRow>(
    'SELECT id, key, name, active, filters FROM feature_flags WHERE project_id = $1 AND id = ANY($2::int[]) AND NOT deleted',
    [projectId, ids],
  );
  return rows;
}

export async function allLiveFlags(db: ReadHandle, projectId: number): Promise<FlagSummaryRow[]> {
  const { rows } = await db.query<FlagSummaryRow>(
    'SELECT id, key, name, active, filters FROM feature_flags WHERE project_id = $1 AND NOT deleted',
    [projectId],
  );
  return rows;
}

/** Active, live flags of the project with a `flag` property on `flagId`, ordered by key. */
export async function activeDependents(db: ReadHandle, projectId: number, flagId: number): Promise<FlagSummaryRow[]> {
  const { rows } = await db.query<FlagSummaryRow>(
    `SELECT f.id, f.key, f.name, f.active, f.filters FROM feature_flags f
      WHERE f.project_id = $1 AND f.active AND NOT f.deleted AND f.id <> $2
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(f.filters->'groups', '[]'::jsonb)) g,
                                  jsonb_array_elements(COALESCE(g->'properties', '[]'::jsonb)) p
                     WHERE p->>'type' = 'flag' AND p->>'key' = $2::text)
      ORDER BY f.key`,
    [projectId, flagId],
  );
  return rows;
}

