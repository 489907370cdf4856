import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';

/** The write side of groups: group type mappings and group rows, inside the batch's transaction. */

// The two-integer advisory key space never meets the single 64-bit keys of distinct ids.
const GROUP_TYPES_LOCK = 727_002;

/** group type → index, for the project. */
export async function loadGroupTypeIndexes(client: ReadHandle, projectId: number): Promise<Map<string, number>> {
  const { rows } = await client.query<{ group_type: string; group_type_index: number }>(
    'SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1',
    [projectId],
  );
  return new Map(rows.map((row) => [row.group_type, row.group_type_index]));
}

/** Serialises the creation of group types in the project until the transaction ends. */
export async function lockGroupTypes(client: WriteTx, projectId: number): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [GROUP_TYPES_LOCK, projectId]);
}

export async function insertGroupTypes(client: WriteTx, projectId: number, types: { group_type: string; group_type_index: number }[]): Promise<void> {
  await client.query(
    `INSERT INTO group_type_mappings (project_id, group_type, group_type_index)
     SELECT $1, t.group_type, t.group_type_index
       FROM jsonb_to_recordset($2::jsonb) AS t(group_type text, group_type_index smallint)
     ON CONFLICT DO NOTHING`,
    [projectId, JSON.stringify(types)],
  );
}

export interface GroupUpsert {
  group_type_index: number;
  group_key: string;
  group_properties: Record<string, unknown>;
  created_at: string;
}

/**
 * Creates the groups or merges the properties into theirs (the new values win), in the order
 * given (the caller sorts by type and key, so parallel batches lock group rows in one order).
 * A group whose properties would not change is not rewritten.
 */
export async function upsertGroups(client: WriteTx, projectId: number, groups: GroupUpsert[]): Promise<void> {
  await client.query(
    `INSERT INTO groups (project_id, group_type_index, group_key, group_properties, created_at)
     SELECT $1, g.group_type_index, g.group_key, g.group_properties, g.created_at
       FROM jsonb_to_recordset($2::jsonb) AS g(group_type_index smallint, group_key text, group_properties jsonb, created_at timestamptz, ord integer)
      ORDER BY g.ord
     ON CONFLICT (project_id, group_type_index, group_key)
     DO UPDATE SET group_properties = groups.group_properties || EXCLUDED.group_properties
      WHERE groups.group_properties IS DISTINCT FROM groups.group_properties || EXCLUDED.group_properties`,
    [projectId, JSON.stringify(groups.map((g, ord) => ({ ...g, ord })))],
  );
}
