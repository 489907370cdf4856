import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';

/** Keys of the live flags of the project with these ids. */
export async function liveFlagKeys(db: ReadHandle, projectId: number, ids: number[]): Promise<Array<{ id: number; key: string }>> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: number; key: string }>(
    'SELECT id, key FROM feature_flags WHERE project_id = $1 AND id = ANY($2::int[]) AND NOT deleted ORDER BY id',
    [projectId, ids],
  );
  return rows;
}

/** Points the flag at its (new) usage dashboard; no version change, as PostHog does. */
export async function setUsageDashboard(db: WriteTx, flagId: number, dashboardId: number): Promise<void> {
  await db.query('UPDATE feature_flags SET usage_dashboard_id = $2 WHERE id = $1', [flagId, dashboardId]);
}
