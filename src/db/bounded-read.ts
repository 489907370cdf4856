import type { Pool, PoolClient } from './pool.ts';
import { withTransaction } from './transaction.ts';

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
  work: (client: PoolClient) => Promise<T>,
  options: BoundedReadOptions = {},
): Promise<T> {
  const settings = [`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`, 'SET LOCAL jit = off'];
  if (options.walkIndexOrder) settings.push('SET LOCAL enable_sort = off');
  const begin = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${settings.join('; ')}`;
  try {
    return await withTransaction(pool, work, begin);
  } catch (error) {
    throw isQueryCanceled(error) ? new QueryTimedOut(error) : error;
  }
}

export function isQueryCanceled(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === QUERY_CANCELED;
}
