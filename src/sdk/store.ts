/**
 * The SQL of the SDK endpoints: what a project's flag evaluation needs besides its flags (cohorts,
 * group types), one person's evaluation inputs in ONE round trip, experience-continuity hash keys,
 * secret-token lookups and `last_called_at`.
 */
import type { CohortNode } from '../cohorts/store.ts';
import type { ReadHandle } from '../db/pool.ts';
import type { PoolWrite } from '../db/unit-of-work.ts';

export interface ProjectExtrasRow {
  cohorts: CohortNode[];
  group_types: { group_type: string; group_type_index: number }[];
}

/** The project's live cohorts and its group type mapping, in one round trip. */
export async function loadProjectExtras(db: ReadHandle, projectId: number): Promise<ProjectExtrasRow> {
  const { rows } = await db.query<ProjectExtrasRow>(
    `SELECT COALESCE((SELECT json_agg(json_build_object('id', c.id, 'name', c.name, 'is_static', c.is_static,
                                                        'filters', c.filters) ORDER BY c.id)
                        FROM cohorts c WHERE c.project_id = $1 AND NOT c.deleted), '[]'::json) AS cohorts,
            COALESCE((SELECT json_agg(json_build_object('group_type', g.group_type, 'group_type_index', g.group_type_index)
                                      ORDER BY g.group_type_index)
                        FROM group_type_mappings g WHERE g.project_id = $1), '[]'::json) AS group_types`,
    [projectId],
  );
  return rows[0];
}

export interface SubjectQuery {
  projectId: number;
  distinctId: string;
  /** `$anon_distinct_id` of the request (experience continuity), or null. */
  anonDistinctId: string | null;
  /** Static cohorts the project's flags use; membership is read only for these. */
  staticCohortIds: readonly number[];
  /** Whether any flag keeps experience continuity (the hash-key overrides are read only then). */
  readOverrides: boolean;
  /** The stored groups to read: type index and key. */
  groups: readonly { index: number; key: string }[];
}

export interface HashKeyOverrideRow {
  person_id: number;
  key: string;
  hash_key: string;
}

export interface SubjectRow {
  person_id: number | null;
  properties: Record<string, unknown> | null;
  anon_person_id: number | null;
  static_cohorts: number[];
  overrides: HashKeyOverrideRow[] | null;
  groups: { index: number; key: string; properties: Record<string, unknown> }[] | null;
}

/**
 * Everything stored about one person and their groups that evaluation reads, in one statement:
 * the person (by distinct id) and their properties, the person of `$anon_distinct_id`, their
 * static cohort memberships among `staticCohortIds`, the hash-key overrides of both persons, and
 * the properties of the groups sent.
 */
export async function loadSubject(db: ReadHandle, query: SubjectQuery): Promise<SubjectRow> {
  if (isPersonOnly(query)) return subjectOf(await loadPerson(db, query.projectId, query.distinctId));
  // A named (prepared) statement: parsed and planned once per connection, not per request.
  const { rows } = await db.query<SubjectRow>({
    name: 'sdk_load_subject',
    text: `WITH me AS (
       SELECT d.person_id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
        WHERE d.project_id = $1 AND d.distinct_id = $2),
     anon AS (
       SELECT d.person_id FROM person_distinct_ids d WHERE d.project_id = $1 AND d.distinct_id = $3)
     SELECT (SELECT person_id FROM me) AS person_id,
            (SELECT properties FROM me) AS properties,
            (SELECT person_id FROM anon) AS anon_person_id,
            CASE WHEN cardinality($4::int[]) = 0 THEN '{}'::int[]
                 ELSE COALESCE((SELECT array_agg(cp.cohort_id) FROM cohort_people cp
                                 WHERE cp.person_id = (SELECT person_id FROM me) AND cp.cohort_id = ANY($4::int[])), '{}')
            END AS static_cohorts,
            CASE WHEN $5::boolean THEN
              (SELECT json_agg(json_build_object('person_id', o.person_id, 'key', o.feature_flag_key, 'hash_key', o.hash_key))
                 FROM feature_flag_hash_key_overrides o
                WHERE o.project_id = $1 AND o.person_id IN (SELECT person_id FROM me UNION ALL SELECT person_id FROM anon))
            END AS overrides,
            (SELECT json_agg(json_build_object('index', g.group_type_index, 'key', g.group_key, 'properties', g.group_properties))
               FROM groups g JOIN unnest($6::smallint[], $7::text[]) AS q(i, k) ON g.group_type_index = q.i AND g.group_key = q.k
              WHERE g.project_id = $1) AS groups`,
    values: [
      query.projectId,
      query.distinctId,
      query.anonDistinctId,
      query.staticCohortIds,
      query.readOverrides,
      query.groups.map((g) => g.index),
      query.groups.map((g) => g.key),
    ],
  });
  return rows[0];
}

/** Whether the query needs the person and their properties only (no static cohorts in use, no experience continuity, no groups sent). */
export function isPersonOnly(query: SubjectQuery): boolean {
  return query.anonDistinctId === null && query.staticCohortIds.length === 0 && !query.readOverrides && query.groups.length === 0;
}

/** One distinct id's person: null fields when there is none. */
export interface PersonRow {
  person_id: number | null;
  properties: Record<string, unknown> | null;
}

/** The subject of a person-only query. */
export function subjectOf(person: PersonRow): SubjectRow {
  return { person_id: person.person_id, properties: person.properties, anon_person_id: null, static_cohorts: [], overrides: null, groups: null };
}

/**
 * The person and their properties only: what most projects need (`isPersonOnly`). Half the
 * database time of the full statement.
 */
export async function loadPerson(db: ReadHandle, projectId: number, distinctId: string): Promise<PersonRow> {
  const { rows } = await db.query<{ person_id: number; properties: Record<string, unknown> | null }>({
    name: 'sdk_load_person',
    text: `SELECT d.person_id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id
            WHERE d.project_id = $1 AND d.distinct_id = $2`,
    values: [projectId, distinctId],
  });
  const person = rows[0];
  return { person_id: person?.person_id ?? null, properties: person?.properties ?? null };
}

/** Experience continuity: `hashKey` for every (person, flag key) pair that has none yet. */
export async function insertHashKeyOverrides(
  db: PoolWrite,
  projectId: number,
  personIds: readonly number[],
  flagKeys: readonly string[],
  hashKey: string,
): Promise<void> {
  if (personIds.length === 0 || flagKeys.length === 0) return;
  await db.query(
    `INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key)
     SELECT $1, p.id, k.key, $4 FROM unnest($2::bigint[]) AS p(id), unnest($3::text[]) AS k(key)
     ON CONFLICT DO NOTHING`,
    [projectId, personIds, flagKeys, hashKey],
  );
}

/** The project whose secret token (`phs_…`) hashes to `hash`, or null. */
export async function findProjectBySecretHash(db: ReadHandle, hash: string): Promise<{ id: number; secret_token_hash: string } | null> {
  const { rows } = await db.query<{ id: number; secret_token_hash: string }>(
    'SELECT id, secret_token_hash FROM projects WHERE secret_token_hash = $1',
    [hash],
  );
  return rows[0] ?? null;
}

/** One flag key's latest `$feature_flag_called` time in a project. */
export interface LastCall {
  projectId: number;
  key: string;
  at: Date;
}

/**
 * `last_called_at = max(stored, at)` for the flags with these keys (deleted ones too), in one
 * statement; never moves backwards. Stamps `last_called_written_at` so the other processes find
 * the change (flags/store.ts `lastCalledWrittenSince`). Answers the flags it changed.
 */
export async function writeLastCalled(
  db: PoolWrite,
  calls: readonly LastCall[],
): Promise<{ project_id: number; id: number; last_called_at: Date }[]> {
  if (calls.length === 0) return [];
  const values = calls.map((_, i) => `($${3 * i + 1}::int, $${3 * i + 2}::text, $${3 * i + 3}::timestamptz)`);
  const params = calls.flatMap((call) => [call.projectId, call.key, call.at.toISOString()]);
  const { rows } = await db.query<{ project_id: number; id: number; last_called_at: Date }>(
    `UPDATE feature_flags f SET last_called_at = GREATEST(f.last_called_at, c.at), last_called_written_at = now()
       FROM (VALUES ${values.join(', ')}) AS c(project_id, key, at)
      WHERE f.project_id = c.project_id AND f.key = c.key AND (f.last_called_at IS NULL OR f.last_called_at < c.at)
      RETURNING f.project_id, f.id, f.last_called_at`,
    params,
  );
  return rows;
}
