import type { Pool, PoolClient } from '../../db/pool.ts';
import { withTransaction } from '../../db/transaction.ts';

/**
 * Runs the statistics' queries on one snapshot (REPEATABLE READ, read only), so that totals and
 * the events subtracted from them agree even while a batch commits in between. JIT is off: these
 * queries are estimated as expensive but run in milliseconds, and compiling would cost more.
 */
export function withReadSnapshot<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(pool, work, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off; SET LOCAL work_mem = '64MB'");
}
