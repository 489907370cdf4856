import { LRUCache } from 'lru-cache';
import { countCacheLookup } from './metrics/metrics.ts';

export interface BoundedCacheOptions<V = unknown> {
  /** Entries kept at most; past it the least recently used goes. */
  max: number;
  /** How long an entry is served at most (ms). */
  ttlMs: number;
  /** Counted under this name in the cache metrics (hits and misses); none: not counted. */
  metricName?: string;
  /** The clock the TTL is measured on, in ms; default the process's monotonic clock (tests pass their own). */
  clock?: () => number;
  /** Told of every entry that leaves: evicted, expired, deleted, replaced by `set` or cleared. */
  onRemove?: (key: string, value: V) => void;
}

/**
 * The project's one shape of in-memory cache with a bound: least recently used entries go first
 * when it is full, and each lives `ttlMs` at most. Values may be null (a lookup that found nothing
 * is remembered too).
 */
export class BoundedCache<V> {
  private readonly entries: LRUCache<string, { value: V }>;
  private readonly metricName: string | undefined;

  constructor(options: BoundedCacheOptions<V>) {
    const { clock, onRemove } = options;
    this.entries = new LRUCache<string, { value: V }>({
      max: options.max,
      ttl: options.ttlMs,
      ...(onRemove ? { dispose: (entry: { value: V }, key: string) => onRemove(key, entry.value) } : {}),
      // lru-cache reuses a reading of its clock for 1 ms of real time; a given clock is read every time.
      ...(clock ? { perf: { now: clock }, ttlResolution: 0 } : {}),
    });
    this.metricName = options.metricName;
  }

  /** The fresh entry, or undefined. */
  get(key: string): { value: V } | undefined {
    const hit = this.entries.get(key);
    if (this.metricName) countCacheLookup(this.metricName, hit !== undefined);
    return hit;
  }

  set(key: string, value: V): void {
    this.entries.set(key, { value });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
