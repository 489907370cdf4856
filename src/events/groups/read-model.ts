import type { ReadHandle } from '../../db/pool.ts';
import type { Page } from '../../kernel/http/pagination.ts';

/** Reads of group types and groups for the API. */

export interface GroupTypeRow {
  group_type: string;
  group_type_index: number;
  name_singular: string | null;
  name_plural: string | null;
}

export interface GroupRow {
  group_type_index: number;
  group_key: string;
  group_properties: Record<string, unknown>;
  created_at: Date;
}

export async function listGroupTypes(db: ReadHandle, projectId: number): Promise<GroupTypeRow[]> {
  const { rows } = await db.query<GroupTypeRow>(
    `SELECT group_type, group_type_index, name_singular, name_plural
       FROM group_type_mappings WHERE project_id = $1 ORDER BY group_type_index`,
    [projectId],
  );
  return rows;
}

/** A page of one type's groups, newest first; `search` matches the key or the `name` property (case-insensitive). */
export async function listGroups(
  db: ReadHandle,
  projectId: number,
  groupTypeIndex: number,
  search: string | undefined,
  page: Page,
): Promise<{ count: number; rows: GroupRow[] }> {
  const where = `project_id = $1 AND group_type_index = $2
    AND ($3::text IS NULL OR strpos(lower(group_key), lower($3::text)) > 0
         OR coalesce(strpos(lower(group_properties ->> 'name'), lower($3::text)) > 0, false))`;
  const filter = [projectId, groupTypeIndex, search ?? null];
  const [count, list] = await Promise.all([
    db.query<{ count: number }>(`SELECT count(*)::int AS count FROM groups WHERE ${where}`, filter),
    db.query<GroupRow>(
      `SELECT group_type_index, group_key, group_properties, created_at FROM groups WHERE ${where}
        ORDER BY created_at DESC, group_key LIMIT $4 OFFSET $5`,
      [...filter, page.limit, page.offset],
    ),
  ]);
  return { count: count.rows[0].count, rows: list.rows };
}

export async function findGroup(db: ReadHandle, projectId: number, groupTypeIndex: number, groupKey: string): Promise<GroupRow | null> {
  const { rows } = await db.query<GroupRow>(
    `SELECT group_type_index, group_key, group_properties, created_at FROM groups
      WHERE project_id = $1 AND group_type_index = $2 AND group_key = $3`,
    [projectId, groupTypeIndex, groupKey],
  );
  return rows[0] ?? null;
}
