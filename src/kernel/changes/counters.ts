import type { ReadHandle } from '../../db/pool.ts';
import { CoalescedRead } from '../coalesced-read.ts';

/**
 * The change counters that prove in-memory copies current (docs/architecture.md, "Read your
 * writes"): `auth` (auth_change_counter: keys, sessions, members, projects) and `flags:<project>`
 * (flag_change_counters). All asked for before a read goes are read in one query, one read under
 * way at a time, and a read sent after a caller's `since` answers it (CoalescedRead).
 */
export type CounterKey = 'auth' | `flags:${number}`;

export const flagsCounter = (projectId: number): CounterKey => `flags:${projectId}`;

export async function readCounters(db: ReadHandle, keys: readonly CounterKey[]): Promise<Map<CounterKey, number>> {
  const projectIds = keys.flatMap((key) => (key === 'auth' ? [] : [Number(key.slice('flags:'.length))]));
  // Prepared once per connection: it runs on nearly every request.
  const { rows } = await db.query<{ key: CounterKey; counter: number }>({
    name: 'bellwether-change-counters',
    text: `SELECT 'auth' AS key, counter FROM auth_change_counter WHERE $2::boolean
           UNION ALL
           SELECT 'flags:' || project_id, counter FROM flag_change_counters WHERE project_id = ANY($1::int[])`,
    values: [projectIds, keys.includes('auth')],
  });
  // A project whose flags were never written has no row yet: count 0.
  const counts = new Map<CounterKey, number>(keys.map((key) => [key, 0]));
  for (const row of rows) counts.set(row.key, row.counter);
  return counts;
}

export class ChangeCounters {
  private readonly reads: CoalescedRead<CounterKey, number>;

  constructor(db: ReadHandle) {
    this.reads = new CoalescedRead((keys) => readCounters(db, keys));
  }

  /** The counter as read after `since` (performance.now(); default: now). */
  get(key: CounterKey, since?: number): Promise<number> {
    return this.reads.get(key, since);
  }

  /** Starts reading counters a request will need, so that they go in one query with the first. */
  prefetch(keys: readonly CounterKey[], since: number): void {
    for (const key of keys) this.reads.get(key, since).catch(() => {});
  }
}
