import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './autocannon.ts';

/** How long a small request beside the load waited: the server's event loop delay as a client sees it. */
export interface ProbeSummary {
  url: string;
  count: number;
  failures: number;
  latencyMs: { p50: number; p99: number; max: number };
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Sends `GET url` one request at a time, `intervalMs` apart, until stopped, and keeps every
 * response time. A request that takes 18 s shows as one sample of 18 s: the probe never piles up.
 */
export function startSideProbe(url: string, intervalMs: number, timeoutMs = 120_000): () => Promise<ProbeSummary> {
  const latencies: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
        await response.arrayBuffer();
        if (response.status !== 200) failures += 1;
      } catch {
        failures += 1;
      }
      latencies.push(performance.now() - started);
      if (running) await sleep(intervalMs);
    }
  })();
  return async () => {
    running = false;
    await loop;
    const sorted = Float64Array.from(latencies).sort();
    return {
      url,
      count: sorted.length,
      failures,
      latencyMs: {
        p50: round(percentile(sorted, 0.5)),
        p99: round(percentile(sorted, 0.99)),
        max: round(sorted.length ? sorted[sorted.length - 1] : Number.NaN),
      },
    };
  };
}

export function describeProbe(summary: ProbeSummary): string {
  const path = new URL(summary.url).pathname;
  return (
    `${path} p50 ${summary.latencyMs.p50} / p99 ${summary.latencyMs.p99} / max ${summary.latencyMs.max} ms ` +
    `(${summary.count} probes${summary.failures ? `, ${summary.failures} failed` : ''})`
  );
}
