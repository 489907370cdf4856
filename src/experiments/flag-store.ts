import type { ReadHandle } from '../db/pool.ts';

/** The id of the project's live (not deleted) flag with this key. */
export async function liveFlagIdByKey(db: ReadHandle, projectId: number, key: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM feature_flags WHERE project_id = $1 AND key = $2 AND NOT deleted', [projectId, key]);
  return rows[0]?.id ?? null;
}
