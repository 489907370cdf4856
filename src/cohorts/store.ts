import type { ReadHandle } from '../db/pool.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import { userSummarySql, type UserSummary } from '../accounts/users/user-summary.ts';

/** A cohort row with its creator. `filters` is `{}` when the cohort has no criteria. */
export interface CohortRecord {
  id: number;
  project_id: number;
  name: string;
  description: string;
  filters: Record<string, unknown>;
  is_static: boolean;
  is_calculating: boolean;
  deleted: boolean;
  count: number | null;
  version: number;
  last_calculation: Date | null;
  errors_calculating: number;
  created_by_id: number | null;
  created_by: UserSummary | null;
  created_at: Date;
  updated_at: Date;
}

const SELECT_COHORT = `SELECT c.id, c.project_id, c.name, c.description, c.filters, c.is_static, c.is_calculating, c.deleted,
         c.count, c.version, c.last_calculation, c.errors_calculating, c.created_by_id, ${userSummarySql('u')} AS created_by,
         c.created_at, c.updated_at
    FROM cohorts c LEFT JOIN users u ON u.id = c.created_by_id`;

/** Filters on events anywhere in a cohort's filters (jsonpath over the stored document). */
const BEHAVIORAL_SQL = `jsonb_path_exists(c.filters, '$.** ? (@.type == "behavioral" || @.type == "event")')`;

export async function findCohort(db: ReadHandle, projectId: number, id: number, forUpdate = false): Promise<CohortRecord | null> {
  const lock = forUpdate ? ' FOR UPDATE OF c' : '';
  const { rows } = await db.query<CohortRecord>(`${SELECT_COHORT} WHERE c.project_id = $1 AND c.id = $2${lock}`, [projectId, id]);
  return rows[0] ?? null;
}

export interface CohortListFilter {
  limit: number;
  offset: number;
  search?: string;
  hideBehavioral?: boolean;
}

/** Live cohorts, newest first. */
export async function listCohorts(db: ReadHandle, projectId: number, filter: CohortListFilter): Promise<{ count: number; rows: CohortRecord[] }> {
  const params: unknown[] = [projectId];
  let where = 'c.project_id = $1 AND NOT c.deleted';
  if (filter.search) {
    params.push(filter.search);
    where += ` AND strpos(lower(c.name), lower($${params.length})) > 0`;
  }
  if (filter.hideBehavioral) where += ` AND (c.is_static OR NOT ${BEHAVIORAL_SQL})`;
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM cohorts c WHERE ${where}`, params);
  const { rows } = await db.query<CohortRecord>(
    `${SELECT_COHORT} WHERE ${where} ORDER BY c.created_at DESC, c.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, filter.limit, filter.offset],
  );
  return { count: total.rows[0].n, rows };
}

export interface NewCohort {
  name: string;
  description: string;
  filters: Record<string, unknown>;
  isStatic: boolean;
  isCalculating: boolean;
}

export async function insertCohort(db: WriteTx, projectId: number, userId: number | null, values: NewCohort): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO cohorts (project_id, name, description, filters, is_static, is_calculating, created_by_id, version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 1) RETURNING id`,
    [projectId, values.name, values.description, JSON.stringify(values.filters), values.isStatic, values.isCalculating, userId],
  );
  return rows[0].id;
}

export interface CohortChanges {
  name: string;
  description: string;
  filters: Record<string, unknown>;
  deleted: boolean;
}

/** Writes the definition and bumps the version. */
export async function updateCohort(db: WriteTx, id: number, values: CohortChanges): Promise<void> {
  await db.query(
    `UPDATE cohorts SET name = $2, description = $3, filters = $4, deleted = $5, version = version + 1, updated_at = now()
      WHERE id = $1`,
    [id, values.name, values.description, JSON.stringify(values.filters), values.deleted],
  );
}

/** A new membership of a static cohort: its count follows, and its version goes up. */
export async function refreshStaticCount(db: WriteTx, id: number, bumpVersion: boolean): Promise<void> {
  await db.query(
    `UPDATE cohorts SET count = (SELECT count(*) FROM cohort_people WHERE cohort_id = $1),
            version = version + $2::int, updated_at = now()
      WHERE id = $1`,
    [id, bumpVersion ? 1 : 0],
  );
}

/** A cohort that cannot be counted here (it filters on events): no count, no calculation. */
export async function clearCount(db: WriteTx, id: number): Promise<void> {
  await db.query('UPDATE cohorts SET count = NULL, is_calculating = false, last_calculation = NULL WHERE id = $1', [id]);
}

export async function markCalculating(db: WriteTx, id: number): Promise<void> {
  await db.query('UPDATE cohorts SET is_calculating = true WHERE id = $1', [id]);
}

/** The outcome of a calculation: a count (null when it could not be computed) or a failure. */
export async function finishCalculation(db: WriteTx, id: number, count: number | null, failed: boolean): Promise<void> {
  await db.query(
    `UPDATE cohorts SET is_calculating = false,
            count = CASE WHEN $3 THEN count ELSE $2::int END,
            last_calculation = CASE WHEN $3 THEN last_calculation ELSE now() END,
            errors_calculating = errors_calculating + CASE WHEN $3 THEN 1 ELSE 0 END
      WHERE id = $1`,
    [id, count, failed],
  );
}

/** Serialises cohort definition changes within a project until the transaction ends (loop checks). */
export async function lockProjectCohorts(db: WriteTx, projectId: number): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [727_010, projectId]);
}

export interface CohortNode {
  id: number;
  name: string;
  is_static: boolean;
  filters: Record<string, unknown>;
}

/** Every live cohort of the project, for reference and loop checks and for evaluation. */
export async function liveCohorts(db: ReadHandle, projectId: number): Promise<CohortNode[]> {
  const { rows } = await db.query<CohortNode>(
    'SELECT id, name, is_static, filters FROM cohorts WHERE project_id = $1 AND NOT deleted ORDER BY id',
    [projectId],
  );
  return rows;
}

/** Live cohorts of the project with these ids. */
export async function liveCohortsByIds(db: ReadHandle, projectId: number, ids: number[]): Promise<CohortNode[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<CohortNode>(
    'SELECT id, name, is_static, filters FROM cohorts WHERE project_id = $1 AND id = ANY($2::int[]) AND NOT deleted',
    [projectId, ids],
  );
  return rows;
}

export interface FlagRef {
  id: number;
  key: string;
  name: string;
}

/** Active, live flags of the project with a cohort condition on one of these cohorts, by key. */
export async function activeFlagsUsingCohorts(db: ReadHandle, projectId: number, cohortIds: number[]): Promise<FlagRef[]> {
  if (cohortIds.length === 0) return [];
  const { rows } = await db.query<FlagRef>(
    `SELECT f.id, f.key, f.name FROM feature_flags f
      WHERE f.project_id = $1 AND f.active AND NOT f.deleted
        AND EXISTS (SELECT 1 FROM jsonb_array_elements(CASE jsonb_typeof(f.filters->'groups') WHEN 'array' THEN f.filters->'groups' ELSE '[]'::jsonb END) g,
                                  jsonb_array_elements(CASE jsonb_typeof(g->'properties') WHEN 'array' THEN g->'properties' ELSE '[]'::jsonb END) p
                     WHERE p->>'type' = 'cohort' AND p->>'value' = ANY($2::text[]))
      ORDER BY f.key`,
    [projectId, cohortIds.map(String)],
  );
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Static membership

export interface MemberRow {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: Date;
  distinct_ids: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const PERSON_COLUMNS = `p.id, p.uuid, p.properties, p.is_identified, p.created_at,
  ARRAY(SELECT d.distinct_id FROM person_distinct_ids d WHERE d.person_id = p.id ORDER BY d.seq) AS distinct_ids`;

/** Adds the persons of the project named by uuid or distinct id; answers how many of them exist. */
export async function addMembers(
  db: WriteTx,
  projectId: number,
  cohortId: number,
  refs: { uuids: string[]; distinctIds: string[] },
): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH found AS (
       SELECT p.id FROM persons p WHERE p.project_id = $1 AND p.uuid = ANY($3::uuid[])
       UNION
       SELECT d.person_id FROM person_distinct_ids d WHERE d.project_id = $1 AND d.distinct_id = ANY($4::text[])
     ), added AS (
       INSERT INTO cohort_people (cohort_id, person_id) SELECT $2, id FROM found ON CONFLICT DO NOTHING
     )
     SELECT count(*)::int AS n FROM found`,
    [projectId, cohortId, refs.uuids.filter((uuid) => UUID.test(uuid)), refs.distinctIds],
  );
  return rows[0].n;
}

/** Adds persons by id (already known to be in the project). */
export async function addMembersById(db: WriteTx, cohortId: number, personIds: number[]): Promise<void> {
  if (personIds.length === 0) return;
  await db.query(
    `INSERT INTO cohort_people (cohort_id, person_id)
     SELECT $1, p.id FROM persons p WHERE p.id = ANY($2::bigint[]) ON CONFLICT DO NOTHING`,
    [cohortId, personIds],
  );
}

export async function removeMember(db: WriteTx, cohortId: number, personId: number): Promise<void> {
  await db.query('DELETE FROM cohort_people WHERE cohort_id = $1 AND person_id = $2', [cohortId, personId]);
}

export async function findPersonId(db: ReadHandle, projectId: number, ref: { uuid?: string; distinctId?: string }): Promise<number | null> {
  if (ref.uuid !== undefined && !UUID.test(ref.uuid)) return null;
  const { rows } = ref.uuid !== undefined
    ? await db.query<{ id: number }>('SELECT id FROM persons WHERE project_id = $1 AND uuid = $2::uuid', [projectId, ref.uuid])
    : await db.query<{ id: number }>(
        'SELECT person_id AS id FROM person_distinct_ids WHERE project_id = $1 AND distinct_id = $2',
        [projectId, ref.distinctId ?? ''],
      );
  return rows[0]?.id ?? null;
}

/** One page of a static cohort's members, in person order. */
export async function staticMembers(db: ReadHandle, cohortId: number, limit: number, offset: number): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT ${PERSON_COLUMNS} FROM cohort_people cp JOIN persons p ON p.id = cp.person_id
      WHERE cp.cohort_id = $1 ORDER BY p.id LIMIT $2 OFFSET $3`,
    [cohortId, limit, offset],
  );
  return rows;
}
