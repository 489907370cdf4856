/**
 * Reads values by key, each answer read from the database after a given moment (`since`: by
 * default the call; a request's arrival when the caller has it), with as few queries as that
 * allows: a read sent after `since` that holds the key answers the caller, whether it is done (its
 * answer is kept per key), under way, or about to go. The keys asked for before a read goes are
 * read together, in one query.
 *
 * At most `maxUnderWay` reads are under way at once: callers who find none to join gather into the
 * next read, sent once one under way is done (or at the end of this turn of the event loop when
 * none is). Under load each read thus answers every request that arrived during the previous one,
 * instead of each request sending its own; none is answered by a read sent before it asked.
 *
 * `gatherMs` (0: off) holds the next read, for at most that long after the previous one came
 * back, until as many callers have asked since as that read answered. The callers a read answers
 * (requests of clients that send their next one on each answer) ask again soon after; sent at the
 * first of them, the next read would leave the rest to the one after, and the callers would stay
 * split in two groups taking turns, each read answering half of them.
 */
export interface CoalescedReadOptions {
  maxUnderWay?: number;
  gatherMs?: number;
}

interface Pending<K, V> {
  keys: Set<K>;
  /** The callers that joined it, by their `since` (one request's calls share its arrival). */
  callers: Set<number>;
  answer: Promise<Map<K, V>>;
  go: () => void;
  scheduled: boolean;
  holdTimer: NodeJS.Timeout | null;
}

export class CoalescedRead<K, V> {
  /** The newest answer per key, and when the read that brought it was sent (performance.now()). */
  private readonly answers = new Map<K, { value: V; sentAt: number }>();
  private readonly underWay = new Set<{ keys: Set<K>; sentAt: number; answer: Promise<Map<K, V>> }>();
  private next: Pending<K, V> | null = null;
  /** The last read to come back: the calls it answered and when (performance.now()). */
  private lastBack = { callers: 0, at: Number.NEGATIVE_INFINITY };
  /** The callers (by `since`) that joined the next read since the last read came back. */
  private askedSinceBack = new Set<number>();
  private readonly maxUnderWay: number;
  private readonly gatherMs: number;

  /** `read` answers a value for every key it is given. */
  constructor(
    private readonly read: (keys: K[]) => Promise<Map<K, V>>,
    options: CoalescedReadOptions | number = {},
  ) {
    const { maxUnderWay = 1, gatherMs = 0 } = typeof options === 'number' ? { maxUnderWay: options } : options;
    this.maxUnderWay = maxUnderWay;
    this.gatherMs = gatherMs;
  }

  async get(key: K, since: number = performance.now()): Promise<V> {
    const known = this.answers.get(key);
    if (known && known.sentAt >= since) return known.value;
    for (const batch of this.underWay) {
      if (batch.sentAt >= since && batch.keys.has(key)) return (await batch.answer).get(key) as V;
    }
    let pending = this.next;
    if (!pending) {
      const keys = new Set<K>();
      let go = (): void => {};
      const ready = new Promise<void>((resolve) => (go = resolve));
      const created: Pending<K, V> = { keys, callers: new Set(), answer: ready.then(() => this.send(created)), go, scheduled: false, holdTimer: null };
      pending = created;
      this.next = pending;
    }
    pending.keys.add(key);
    pending.callers.add(since);
    this.askedSinceBack.add(since);
    this.schedule();
    return (await pending.answer).get(key) as V;
  }

  /**
   * Lets the next read go once this turn of the event loop is done (the callers of every request
   * read from the sockets in this turn share it), if fewer than `maxUnderWay` are under way and
   * it is not held for callers expected back (`gatherMs`).
   */
  private schedule(): void {
    const pending = this.next;
    if (!pending || pending.scheduled || this.underWay.size >= this.maxUnderWay) return;
    const holdUntil = this.lastBack.at + this.gatherMs;
    const now = performance.now();
    if (this.askedSinceBack.size < this.lastBack.callers && now < holdUntil) {
      pending.holdTimer ??= setTimeout(() => this.release(pending), Math.ceil(holdUntil - now));
      return;
    }
    this.release(pending);
  }

  private release(pending: Pending<K, V>): void {
    if (pending.scheduled) return;
    pending.scheduled = true;
    if (pending.holdTimer) clearTimeout(pending.holdTimer);
    pending.holdTimer = null;
    setImmediate(pending.go);
  }

  private async send(pending: Pending<K, V>): Promise<Map<K, V>> {
    if (this.next === pending) this.next = null;
    const { keys } = pending;
    const sentAt = performance.now();
    const answer = this.read([...keys]);
    const batch = { keys, sentAt, answer };
    this.underWay.add(batch);
    try {
      const values = await answer;
      for (const [key, value] of values) {
        const known = this.answers.get(key);
        if (!known || known.sentAt < sentAt) this.answers.set(key, { value, sentAt });
      }
      return values;
    } finally {
      this.underWay.delete(batch);
      this.lastBack = { callers: pending.callers.size, at: performance.now() };
      this.askedSinceBack.clear();
      this.schedule();
    }
  }
}
