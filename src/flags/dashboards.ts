import type { ReadHandle } from '../db/pool.ts';
import { validationError } from '../kernel/errors.ts';
import { existingDashboardIds } from './store.ts';

/** `analytics_dashboards` must name dashboards of the same project. */
export async function checkDashboards(db: ReadHandle, projectId: number, ids: number[] | undefined): Promise<number[]> {
  if (!ids || ids.length === 0) return [];
  const existing = await existingDashboardIds(db, projectId, ids);
  const missing = ids.find((id) => !existing.has(id));
  if (missing !== undefined) {
    throw validationError(`Invalid pk "${missing}" - object does not exist.`, 'analytics_dashboards', 'does_not_exist');
  }
  return [...new Set(ids)].sort((a, b) => a - b);
}
