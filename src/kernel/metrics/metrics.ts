/**
 * The Prometheus metrics every serving process keeps (prom-client's default registry). In a cluster
 * the primary sums them over the workers (listener.ts); prom-client answers its requests in each
 * worker once this module is loaded there.
 */
import cluster from 'node:cluster';
import client from 'prom-client';

let defaultsStarted = false;

/**
 * Process metrics (CPU, memory, event-loop lag, GC); once per process. A worker also starts
 * answering the primary's requests for its metrics (prom-client sets that up in the constructor).
 */
export function collectProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  client.collectDefaultMetrics();
  if (cluster.isWorker) new client.AggregatorRegistry();
}

export const httpRequests = new client.Counter({
  name: 'bellwether_http_requests_total',
  help: 'HTTP requests answered, by route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
});

export const httpDuration = new client.Histogram({
  name: 'bellwether_http_request_duration_seconds',
  help: 'Time from request to response, by route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** Lookups counted since the last scrape, per cache: plain additions on the hot path. */
const pendingCacheLookups = new Map<string, { hit: number; miss: number }>();

export const cacheRequests = new client.Counter({
  name: 'bellwether_cache_requests_total',
  help: 'In-memory cache lookups, by cache and result (hit or miss)',
  labelNames: ['cache', 'result'] as const,
  collect() {
    for (const [cache, counts] of pendingCacheLookups) {
      if (counts.hit > 0) this.inc({ cache, result: 'hit' }, counts.hit);
      if (counts.miss > 0) this.inc({ cache, result: 'miss' }, counts.miss);
      counts.hit = 0;
      counts.miss = 0;
    }
  },
});

/**
 * Counts a lookup of `cache` (a hit or a miss). Every request makes a few; labelled counter
 * increments hash their labels each time, so they are added up here and handed to the counter when
 * it is scraped.
 */
export function countCacheLookup(cache: string, hit: boolean): void {
  let counts = pendingCacheLookups.get(cache);
  if (!counts) pendingCacheLookups.set(cache, (counts = { hit: 0, miss: 0 }));
  if (hit) counts.hit++;
  else counts.miss++;
}

export const changeNoticeLag = new client.Histogram({
  name: 'bellwether_change_notice_lag_seconds',
  help: 'From a change notice being published (writer clock) to its handlers having run in this process',
  labelNames: ['kind'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

export const ingestedEvents = new client.Counter({
  name: 'bellwether_ingestion_events_total',
  help: 'Events received by ingestion, by result (stored, or duplicate of one already stored)',
  labelNames: ['result'] as const,
});

/** Connections of a pg pool: summed over workers, like every gauge here. */
export function watchPool(pool: { totalCount: number; idleCount: number; waitingCount: number }): void {
  client.register.removeSingleMetric('bellwether_db_pool_connections');
  new client.Gauge({
    name: 'bellwether_db_pool_connections',
    help: 'Database pool connections: total open, idle, and requests waiting for one',
    labelNames: ['state'] as const,
    collect() {
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
}
