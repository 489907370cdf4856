import { BoundedCache } from '../../kernel/bounded-cache.ts';

/** Results are served from here at most this long after they were computed. */
export const RESULTS_MAX_AGE_MS = 60_000;

/**
 * Computed results per (experiment, state generation, metric): any edit that changes what the
 * state means moves the generation, so an entry never outlives its definition, and a running
 * experiment's numbers are never older than a minute.
 */
export class ResultsCache {
  private readonly entries = new BoundedCache<unknown>({ max: 2000, ttlMs: RESULTS_MAX_AGE_MS, metricName: 'experiment_results' });

  async get<T>(key: string, compute: () => Promise<T>, refresh: boolean): Promise<T> {
    if (!refresh) {
      const hit = this.entries.get(key);
      if (hit) return hit.value as T;
    }
    const value = await compute();
    this.entries.set(key, value);
    return value;
  }
}
