import type { Pool, ReadHandle } from './pool.ts';
import { withTransaction } from './transaction.ts';

/**
 * Runs the reads of `work` on one snapshot (REPEATABLE READ, read only), so they all see the same
 * state even while writes commit in between. `settings` are `SET LOCAL` assignments for these
 * reads (`jit = off`, a statement timeout). The handle reads only: no writer takes it.
 */
export function withReadSnapshot<T>(pool: Pool, work: (snapshot: ReadHandle) => Promise<T>, settings: readonly string[] = []): Promise<T> {
  const begin = ['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', ...settings.map((setting) => `SET LOCAL ${setting}`)].join('; ');
  return withTransaction(pool, work, begin);
}
