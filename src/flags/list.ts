import type { Queryable } from '../db/pool.ts';
import type { Page } from '../platform/http/pagination.ts';
import { decodeListQuery } from './list-filter.ts';
import { listFlags, staleCandidates } from './list-store.ts';
import type { FlagRecord } from './record.ts';
import type { FlagListQuery } from './schemas.ts';
import { flagStatus } from './status.ts';

const STATUS_THRESHOLD_DAYS = 30;

/**
 * The flag list. `active=STALE` keeps flags whose computed status is stale or inactive; the status
 * rule lives in one place (status.ts), so the candidates are read and judged here.
 */
export async function listProjectFlags(
  db: Queryable,
  projectId: number,
  query: FlagListQuery,
  page: Page,
): Promise<{ count: number; flags: FlagRecord[] }> {
  const filter = decodeListQuery(query);
  let staleIds: number[] | null = null;
  if (filter.staleOnly) {
    const now = new Date();
    const candidates = await staleCandidates(db, projectId, STATUS_THRESHOLD_DAYS);
    staleIds = candidates.filter((flag) => flagStatus(flag, now).status !== 'active').map((flag) => flag.id);
  }
  return listFlags(db, projectId, filter, staleIds, page);
}
