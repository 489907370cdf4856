import type { ReadHandle } from '../db/pool.ts';
import type { MemberRow } from './store.ts';

/** Reads of the people (and groups) a cohort, a flag or a blast radius is evaluated over. */

export async function countPersons(db: ReadHandle, projectId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM persons WHERE project_id = $1', [projectId]);
  return rows[0].n;
}

/** The next `limit` persons after `afterId`, in id order (keyset paging), with their distinct ids. */
export async function personBatch(db: ReadHandle, projectId: number, afterId: number, limit: number): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT p.id, p.uuid, p.properties, p.is_identified, p.created_at,
            ARRAY(SELECT d.distinct_id FROM person_distinct_ids d WHERE d.person_id = p.id ORDER BY d.seq) AS distinct_ids
       FROM persons p
      WHERE p.project_id = $1 AND p.id > $2
      ORDER BY p.id
      LIMIT $3`,
    [projectId, afterId, limit],
  );
  return rows;
}

/** Memberships of these persons in the project's live static cohorts. */
export async function staticMemberships(
  db: ReadHandle,
  projectId: number,
  personIds: number[],
): Promise<Array<{ person_id: number; cohort_id: number }>> {
  if (personIds.length === 0) return [];
  const { rows } = await db.query<{ person_id: number; cohort_id: number }>(
    `SELECT cp.person_id, cp.cohort_id FROM cohort_people cp JOIN cohorts c ON c.id = cp.cohort_id
      WHERE cp.person_id = ANY($2::bigint[]) AND c.project_id = $1 AND c.is_static AND NOT c.deleted`,
    [projectId, personIds],
  );
  return rows;
}

/** Experience-continuity hash keys of these persons for these flags. */
export async function hashKeyOverrides(
  db: ReadHandle,
  projectId: number,
  personIds: number[],
  flagKeys: string[],
): Promise<Array<{ person_id: number; feature_flag_key: string; hash_key: string }>> {
  if (personIds.length === 0 || flagKeys.length === 0) return [];
  const { rows } = await db.query<{ person_id: number; feature_flag_key: string; hash_key: string }>(
    `SELECT person_id, feature_flag_key, hash_key FROM feature_flag_hash_key_overrides
      WHERE project_id = $1 AND person_id = ANY($2::bigint[]) AND feature_flag_key = ANY($3::text[])`,
    [projectId, personIds, flagKeys],
  );
  return rows;
}

/** Group type index → group type name. */
export async function groupTypeMapping(db: ReadHandle, projectId: number): Promise<Record<number, string>> {
  const { rows } = await db.query<{ group_type: string; group_type_index: number }>(
    'SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1',
    [projectId],
  );
  return Object.fromEntries(rows.map((row) => [row.group_type_index, row.group_type]));
}

export interface GroupRow {
  group_key: string;
  group_properties: Record<string, unknown>;
}

/** The next `limit` groups of one type after `afterKey`, in key order. */
export async function groupBatch(
  db: ReadHandle,
  projectId: number,
  groupTypeIndex: number,
  afterKey: string | null,
  limit: number,
): Promise<GroupRow[]> {
  const { rows } = await db.query<GroupRow>(
    `SELECT group_key, group_properties FROM groups
      WHERE project_id = $1 AND group_type_index = $2 AND ($3::text IS NULL OR group_key > $3::text)
      ORDER BY group_key
      LIMIT $4`,
    [projectId, groupTypeIndex, afterKey, limit],
  );
  return rows;
}
