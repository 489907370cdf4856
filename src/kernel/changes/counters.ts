import type { ReadHandle } from '../../db/pool.ts';
import { CoalescedRead } from '../coalesced-read.ts';
import { COUNTERS_SQL, type CounterConnection, type CounterRow } from './counter-connection.ts';

/**
 * The change counters that prove in-memory copies current (docs/architecture.md, "Read your
 * writes"): `auth` (auth_change_counter: keys, sessions, members, projects) and `flags:<project>`
 * (flag_change_counters). All asked for before a read goes are read in one query, one read under
 * way at a time, and a read sent after a caller's `since` answers it (CoalescedRead).
 */
export type CounterKey = 'auth' | `flags:${number}`;

export const flagsCounter = (projectId: number): CounterKey => `flags:${projectId}`;

const projectIdsOf = (keys: readonly CounterKey[]): number[] =>
  keys.flatMap((key) => (key === 'auth' ? [] : [Number(key.slice('flags:'.length))]));

/** The counts of `keys` from the rows read; a project whose flags were never written has no row yet: count 0. */
function countsOf(keys: readonly CounterKey[], rows: readonly CounterRow[]): Map<CounterKey, number> {
  const counts = new Map<CounterKey, number>(keys.map((key) => [key, 0]));
  for (const [key, counter] of rows) counts.set(key as CounterKey, counter);
  return counts;
}

export async function readCounters(db: ReadHandle, keys: readonly CounterKey[]): Promise<Map<CounterKey, number>> {
  // Prepared once per connection: it runs on nearly every request.
  const { rows } = await db.query<CounterRow>({
    name: 'bellwether-change-counters',
    text: COUNTERS_SQL,
    values: [projectIdsOf(keys), keys.includes('auth')],
    rowMode: 'array',
  });
  return countsOf(keys, rows);
}

/**
 * How long the next read may be held for the requests the previous read answered to come back
 * (CoalescedRead's `gatherMs`): clients that send their next request on each answer otherwise
 * split into two groups taking turns, about twice the reads per request. The longest a request
 * can wait for it; a timer's least delay.
 */
const GATHER_MS = 1;

export class ChangeCounters {
  private readonly reads: CoalescedRead<CounterKey, number>;

  /**
   * `connection`: the process's own connection for these reads (counter-connection.ts); a read it
   * cannot make (lost, reconnecting) goes to the pool. None: always the pool.
   */
  constructor(db: ReadHandle, connection: CounterConnection | null = null) {
    this.reads = new CoalescedRead(async (keys) => {
      if (!connection) return readCounters(db, keys);
      let rows: CounterRow[];
      try {
        rows = await connection.read(projectIdsOf(keys), keys.includes('auth'));
      } catch {
        return readCounters(db, keys);
      }
      return countsOf(keys, rows);
    }, { gatherMs: GATHER_MS });
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
