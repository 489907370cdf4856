import { createHash } from 'node:crypto';
import type { WriteTx } from './unit-of-work.ts';

/**
 * Transaction-scoped advisory lock keys (signed 64-bit, as PostgreSQL takes them) for `names`
 * within `namespace`, sorted and without repeats: every transaction takes its keys in the same
 * order, so two of them never wait on each other in a cycle. The namespace keeps one kind of work
 * from waiting on another's keys (64-bit SHA-1 prefixes: a clash is vanishingly rare, and costs a
 * wait, never a wrong answer).
 */
export function advisoryLockKeys(namespace: string, names: Iterable<string>): bigint[] {
  const keys = new Set<bigint>();
  for (const name of names) keys.add(createHash('sha1').update(`${namespace}${name}`, 'utf8').digest().readBigInt64BE(0));
  return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Takes the `shared` keys in shared mode, then the `exclusive` ones, each list in its order (both
 * from advisoryLockKeys), until the transaction ends; one round trip.
 */
export async function takeAdvisoryLocks(db: WriteTx, exclusive: readonly bigint[], shared: readonly bigint[] = []): Promise<void> {
  if (exclusive.length === 0 && shared.length === 0) return;
  // unnest() yields an array in order and the projection runs row by row, so each list's locks are
  // taken in its order; the materialised shared part is scanned before the exclusive part runs.
  if (shared.length === 0) {
    await db.query({ name: 'bellwether-advisory-locks', text: 'SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS k', values: [exclusive.map(String)] });
    return;
  }
  await db.query({
    name: 'bellwether-advisory-locks-shared-first',
    text:
      'WITH shared AS MATERIALIZED (SELECT count(pg_advisory_xact_lock_shared(k)) AS n FROM unnest($1::bigint[]) AS k) ' +
      'SELECT shared.n + (SELECT count(pg_advisory_xact_lock(k)) FROM unnest($2::bigint[]) AS k) FROM shared',
    values: [shared.map(String), exclusive.map(String)],
  });
}
