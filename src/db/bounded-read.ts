import type { Pool, ReadHandle } from './pool.ts';
import { withReadSnapshot } from './read-snapshot.ts';

/** PostgreSQL's "canceling statement due to statement timeout". */
const QUERY_CANCELED = '57014';

/** A bounded read ran past its time (the HTTP layer answers 503 query_timeout). */
export class QueryTimedOut extends Error {
  constructor(cause: unknown) {
    super('a bounded read ran past its statement timeout', { cause });
    this.name = 'QueryTimedOut';
  }
}

export interface BoundedReadOptions {
  /**
   * Keyset pages (ORDER BY an index's columns, LIMIT n, filters of unknown selectivity): without
   * this, an estimate that the filters keep few rows makes the planner sort the whole match
   * instead of walking the index and stopping at n (seconds instead of milliseconds).
   */
  walkIndexOrder?: boolean;
}

/**
 * Runs read-only queries on one snapshot, each statement bounded by `timeoutMs` (a search over
 * millions of rows must not hold a connection for minutes). A timeout throws QueryTimedOut.
 * JIT is off: compiling costs more than these short reads.
 */
export async function withBoundedRead<T>(
  pool: Pool,
  timeoutMs: number,
  work: (snapshot: ReadHandle) => Promise<T>,
  options: BoundedReadOptions = {},
): Promise<T> {
  const settings = [`statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`, 'jit = off'];
  if (options.walkIndexOrder) settings.push('enable_sort = off');
  try {
    return await withReadSnapshot(pool, work, settings);
  } catch (error) {
    throw isQueryCanceled(error) ? new QueryTimedOut(error) : error;
  }
}

export function isQueryCanceled(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === QUERY_CANCELED;
}
