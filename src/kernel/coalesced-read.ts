/**
 * Reads values by key in batches, each answer at least as new as the call that asked for it: a
 * call made while a read is under way waits for the next read (the one under way may have taken its
 * snapshot before the call), which starts as soon as that one is done and carries every key asked
 * for meanwhile. Under load this is one query per round trip rather than one per caller.
 */
export class CoalescedRead<K, V> {
  private next: { keys: Set<K>; answer: Promise<Map<K, V>> } | null = null;
  private running: Promise<unknown> = Promise.resolve();

  /** `read` answers a value for every key it is given. */
  constructor(private readonly read: (keys: K[]) => Promise<Map<K, V>>) {}

  async get(key: K): Promise<V> {
    let batch = this.next;
    if (!batch) {
      const keys = new Set<K>();
      const answer = this.running.then(() => {
        if (this.next?.keys === keys) this.next = null;
        return this.read([...keys]);
      });
      this.running = answer.catch(() => {});
      batch = { keys, answer };
      this.next = batch;
    }
    batch.keys.add(key);
    const values = await batch.answer;
    return values.get(key) as V;
  }
}
