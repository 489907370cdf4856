/**
 * Reads values by key, each answer read from the database after a given moment (`since`: by
 * default the call; a request's arrival when the caller has it), with as few queries as that
 * allows: a read sent after `since` that holds the key answers the caller, whether it is done (its
 * answer is kept per key), under way, or about to go (the keys asked for before it goes are read
 * together, in one query). Under load most callers find such a read and wait for no query of their
 * own; none waits for a read that was sent before it asked.
 */
export class CoalescedRead<K, V> {
  /** The newest answer per key, and when the read that brought it was sent (performance.now()). */
  private readonly answers = new Map<K, { value: V; sentAt: number }>();
  private readonly underWay = new Set<{ keys: Set<K>; sentAt: number; answer: Promise<Map<K, V>> }>();
  private next: { keys: Set<K>; answer: Promise<Map<K, V>> } | null = null;

  /** `read` answers a value for every key it is given. */
  constructor(private readonly read: (keys: K[]) => Promise<Map<K, V>>) {}

  async get(key: K, since: number = performance.now()): Promise<V> {
    const known = this.answers.get(key);
    if (known && known.sentAt >= since) return known.value;
    for (const batch of this.underWay) {
      if (batch.sentAt >= since && batch.keys.has(key)) return (await batch.answer).get(key) as V;
    }
    let pending = this.next;
    if (!pending) {
      const keys = new Set<K>();
      // Sent once this turn of the event loop is done: the callers of every request read from the
      // sockets in this turn share it.
      const answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.send(keys));
      pending = { keys, answer };
      this.next = pending;
    }
    pending.keys.add(key);
    return (await pending.answer).get(key) as V;
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
    }
  }
}
