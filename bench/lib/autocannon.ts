import autocannon from 'autocannon';
import type { OperationPlan, Target } from '../targets/target.ts';

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  /** Seconds before autocannon gives up on one answer (a socket error); 10 by default. */
  timeoutSeconds?: number;
}

export interface Measurement {
  /** Mean of the per-second request counts (autocannon's requests.mean). */
  requestsPerSecond: number;
  totalRequests: number;
  /** Mean bytes per response, headers included. */
  bytesPerResponse: number;
  /** Latencies in ms measured per response with sub-ms precision (autocannon's own histogram keeps whole ms). */
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** The first answer outside 2xx, when there was one. */
  sampleError: { status: number; body: string } | null;
  /** 2xx answers the plan's `rejectBody` refused (only when the plan has one). */
  rejected?: number;
}

export class LoadError extends Error {}

export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}

const round = (value: number) => Math.round(value * 100) / 100;

/** Every latency of a run, kept with sub-millisecond precision. */
export class LatencyRecorder {
  private values = new Float64Array(1 << 16);
  count = 0;

  record(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }

  summary(): Measurement['latencyMs'] {
    const sorted = this.values.slice(0, this.count).sort();
    let sum = 0;
    for (const value of sorted) sum += value;
    return {
      mean: round(this.count ? sum / this.count : Number.NaN),
      p50: round(percentile(sorted, 0.5)),
      p90: round(percentile(sorted, 0.9)),
      p99: round(percentile(sorted, 0.99)),
      max: round(this.count ? sorted[this.count - 1] : Number.NaN),
    };
  }
}

/** Where the load goes: the server's address and the headers every request carries (authentication). */
export type LoadTarget = Pick<Target, 'baseUrl' | 'headers'>;

/** Runs one autocannon load of `plan` against `target` and fails loudly on any non-2xx or socket error. */
export async function runLoad(target: LoadTarget, plan: OperationPlan, settings: LoadSettings, label: string): Promise<Measurement> {
  const headers: Record<string, string> = { ...target.headers };
  if (plan.method !== 'GET') headers['content-type'] = 'application/json';
  Object.assign(headers, plan.headers);
  let sampleError: Measurement['sampleError'] = null;
  let firstSocketError: string | null = null;
  let rejected = 0;
  let firstRejection: string | null = null;
  const latencies = new LatencyRecorder();

  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.baseUrl,
        connections: settings.connections,
        duration: settings.durationSeconds,
        timeout: settings.timeoutSeconds ?? 10,
        pipelining: 1,
        headers,
        requests: [
          {
            method: plan.method,
            setupRequest: (request) => {
              const shape = plan.next();
              return { ...request, path: shape.path, body: shape.body ?? '' };
            },
            onResponse: (status, body) => {
              if (status < 200 || status > 299) {
                if (sampleError === null) sampleError = { status, body: body.slice(0, 1000) };
              } else if (plan.rejectBody) {
                const problem = plan.rejectBody(body);
                if (problem !== null) {
                  rejected += 1;
                  firstRejection ??= problem;
                }
              }
            },
          },
        ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('reqError', (error: unknown) => {
      firstSocketError ??= error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`.trim() : String(error);
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => latencies.record(responseTime));
  });

  const count = latencies.count;
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;

  const measurement: Measurement = {
    requestsPerSecond: round(result.requests.mean),
    totalRequests: result.requests.total,
    bytesPerResponse: result.requests.total ? Math.round(result.throughput.total / result.requests.total) : 0,
    latencyMs: latencies.summary(),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    sampleError,
    ...(plan.rejectBody ? { rejected } : {}),
  };

  if (measurement.non2xx > 0 || measurement.errors > 0 || rejected > 0 || count === 0) {
    const sample = measurement.sampleError as Measurement['sampleError'];
    throw new LoadError(
      `${label}: ${measurement.non2xx} non-2xx answers, ${measurement.errors} socket errors (${measurement.timeouts} timeouts) ` +
        `out of ${count} responses; status codes ${JSON.stringify(statusCodes)}` +
        (rejected > 0 ? `\n  ${rejected} 2xx answers refused, the first: ${firstRejection}` : '') +
        (sample ? `\n  first error: HTTP ${sample.status} ${sample.body}` : '') +
        (firstSocketError ? `\n  first socket error: ${firstSocketError}` : ''),
    );
  }
  return measurement;
}
