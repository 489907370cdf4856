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
 */
export class CoalescedRead<K, V> {
  /** The newest answer per key, and when the read that brought it was sent (performance.now()). */
  private readonly answers = new Map<K, { value: V; sentAt: number }>();
  private readonly underWay = new Set<{ keys: Set<K>; sentAt: number; answer: Promise<Map<K, V>> }>();
  private next: { keys: Set<K>; answer: Promise<Map<K, V>>; go: () => void; scheduled: boolean } | null = null;

  /** `read` answers a value for every key it is given. */
  constructor(
    private readonly read: (keys: K[]) => Promise<Map<K, V>>,
    private readonly maxUnderWay = 1,
  ) {}

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
      const answer = new Promise<void>((resolve) => (go = resolve)).then(() => this.send(keys));
      pending = { keys, answer, go, scheduled: false };
      this.next = pending;
      this.schedule();
    }
    pending.keys.add(key);
    return (await pending.answer).get(key) as V;
  }

  /**
   * Lets the next read go once this turn of the event loop is done (the callers of every request
   * read from the sockets in this turn share it), if fewer than `maxUnderWay` are under way.
   */
  private schedule(): void {
    const pending = this.next;
    if (!pending || pending.scheduled || this.underWay.size >= this.maxUnderWay) return;
    pending.scheduled = true;
    setImmediate(pending.go);
  }

  private async send(keys: Set<K>): Promise<Map<K, V>> {
    if (this.next?.keys === keys) this.next = null;
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
      this.schedule();
    }
  }
}
