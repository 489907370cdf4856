/**
 * `read-your-writes`: what proving the flag cache current costs, and how far the SDK endpoints lag.
 *
 * 1. Speed: the flag list (50 per page of 200 flags) and retrieve with WORKERS=2, this checkout
 *    beside a baseline checkout (`BENCH_BASELINE_DIR`, e.g. a worktree of main before the change,
 *    with node_modules), both up for the whole run and taking turns, who goes first alternating
 *    per round (`BENCH_RYW_ROUNDS`, 2). The ratio ours / baseline per operation (aim ≥ 0.8).
 *    Skipped without BENCH_BASELINE_DIR.
 * 2. SDK lag: node A (WORKERS=2) and node B (WORKERS=2) on one database, both serving
 *    `POST /flags?v=2` under autocannon (`BENCH_CONNECTIONS` / 2 connections each) meanwhile. A probe
 *    flag is switched (rollout 0 ↔ 100 %) through A, `BENCH_LAG_CHANGES` (100) times; after each
 *    answer, A and B are polled (`/flags?v=2` for that flag, each poll on a new connection, the
 *    nodes' primaries dealing connections out in turn (NODE_CLUSTER_SCHED_POLICY=rr) so that the
 *    polls reach both workers) until 6 answers in a row show the change. The
 *    lag is the time from A's answer to the first poll sent after the last stale answer: across
 *    workers (A's other worker) and across nodes (B). p50 / p99 (aim p99 < 250 ms).
 * `BENCH_RYW_PARTS` (speed,lag) chooses the parts.
 */
import http from 'node:http';
import os from 'node:os';
import { runLoad } from '../lib/autocannon.ts';
import type { BenchConfig } from '../lib/config.ts';
import { expectStatus } from '../lib/http.ts';
import { measureSettingsOf, runOperation, type OperationResult } from '../lib/measure.ts';
import { table } from '../lib/report.ts';
import { projectToken, startAnotherNode, startBellwether, type BellwetherTarget, type NodeProcess } from '../targets/bellwether.ts';
import type { OperationPlan } from '../targets/target.ts';
import type { Log, Scenario } from './scenario.ts';

const SEED_FLAGS = 200;
const PROBE_FLAG = 'lag-probe';
const FRESH_IN_A_ROW = 6;
const round2 = (value: number) => Math.round(value * 100) / 100;

function percentiles(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { p50: round2(at(0.5)), p99: round2(at(0.99)), max: round2(sorted[sorted.length - 1]) };
}

/** One POST on a connection of its own (no keep-alive): the answer's text. */
function postOnNewConnection(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.setTimeout(10_000, () => request.destroy(new Error(`${url}: no answer within 10 s`)));
    request.on('error', reject);
    request.end(body);
  });
}

/** One GET on a connection of its own (each may reach another worker). */
function getOnNewConnection(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { ...headers, connection: 'close' } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`${url}: no answer within 10 s`)));
    request.on('error', reject);
  });
}

/**
 * Polls `baseUrl` until FRESH_IN_A_ROW answers in a row show `enabled`; the time from `since` to
 * the sending of the first poll after the last stale answer (ms).
 */
async function lagOf(baseUrl: string, body: string, enabled: boolean, since: number): Promise<number> {
  const wanted = `"enabled":${enabled}`;
  let freshSince: number | null = null;
  let inARow = 0;
  for (;;) {
    const sent = performance.now();
    const answer = await postOnNewConnection(`${baseUrl}/flags?v=2`, body);
    if (answer.status !== 200) throw new Error(`${baseUrl} answered ${answer.status} while polled: ${answer.text.slice(0, 300)}`);
    if (answer.text.includes(wanted)) {
      freshSince ??= sent;
      if (++inARow >= FRESH_IN_A_ROW) return Math.max(0, freshSince - since);
    } else {
      freshSince = null;
      inARow = 0;
    }
    if (sent - since > 30_000) throw new Error(`${baseUrl} did not show the change within 30 s`);
  }
}

function evaluationPlan(token: string): OperationPlan {
  let index = 0;
  return {
    method: 'POST',
    next: () => ({ path: '/flags?v=2', body: JSON.stringify({ token, distinct_id: `load-${index++ % 1000}` }) }),
    check: (body) => (typeof (body as { flags?: object } | null)?.flags === 'object' ? null : 'no flags in the answer'),
  };
}

async function seedFlags(target: BellwetherTarget): Promise<void> {
  for (let i = 0; i < SEED_FLAGS; i++) {
    const body = JSON.stringify({ key: `seed-${i}`, filters: { groups: [{ properties: [], rollout_percentage: (i * 7) % 101 }] } });
    await expectStatus(201, 'POST', `${target.baseUrl}/api/projects/1/feature_flags/`, target.headers, body);
  }
}

async function untilListed(target: BellwetherTarget, count: number): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (let inARow = 0; inARow < 20; ) {
    const page = await getOnNewConnection(`${target.baseUrl}/api/projects/1/feature_flags/?limit=1`, target.headers);
    inARow = page.status === 200 && (JSON.parse(page.text) as { count?: number }).count === count ? inARow + 1 : 0;
    if (performance.now() > deadline) throw new Error(`${target.baseUrl} did not list ${count} flags within 30 s`);
  }
}

interface SpeedRow {
  operation: 'list' | 'retrieve';
  ours: OperationResult[];
  baseline: OperationResult[];
  ratio: number;
}

async function measureSpeed(config: BenchConfig, baselineDir: string, rounds: number, log: Log): Promise<SpeedRow[]> {
  const settings = measureSettingsOf(config);
  const ours = await startBellwether(config.adminDatabaseUrl, { workers: 2 });
  let baseline: BellwetherTarget | null = null;
  try {
    baseline = await startBellwether(config.adminDatabaseUrl, { workers: 2, root: baselineDir });
    await ours.seed(SEED_FLAGS);
    await baseline.seed(SEED_FLAGS);
    // A baseline from before read-your-writes may list from a worker that has not heard of the
    // last seeded flags yet: wait until every worker lists them all (the checked first request).
    await untilListed(baseline, SEED_FLAGS);
    const named = { ours: { ...ours, name: 'this checkout (WORKERS=2)' }, baseline: { ...baseline, name: 'baseline (WORKERS=2)' } };
    const rows: SpeedRow[] = [];
    for (const operation of ['list', 'retrieve'] as const) {
      const results = { ours: [] as OperationResult[], baseline: [] as OperationResult[] };
      for (let r = 0; r < rounds; r++) {
        const order = (r + (operation === 'list' ? 0 : 1)) % 2 === 0 ? (['baseline', 'ours'] as const) : (['ours', 'baseline'] as const);
        for (const who of order) {
          const target = who === 'ours' ? ours : baseline;
          results[who].push(await runOperation(named[who], target.plan(operation), settings, operation, log));
        }
      }
      const mean = (list: OperationResult[]) => list.reduce((sum, result) => sum + result.requestsPerSecond, 0) / list.length;
      rows.push({ operation, ...results, ratio: mean(results.ours) / mean(results.baseline) });
    }
    return rows;
  } finally {
    await baseline?.stop();
    await ours.stop();
  }
}

interface Lag {
  changes: number;
  acrossWorkers: { p50: number; p99: number; max: number };
  acrossNodes: { p50: number; p99: number; max: number };
  loadRequestsPerSecond: { a: number; b: number };
}

async function measureLag(config: BenchConfig, changes: number, log: Log): Promise<Lag> {
  const settings = measureSettingsOf(config);
  // The primary deals connections out in turn, so that the polls of A reach both of its workers.
  const roundRobin = { NODE_CLUSTER_SCHED_POLICY: 'rr' };
  const a = await startBellwether(config.adminDatabaseUrl, { workers: 2, env: roundRobin });
  let b: NodeProcess | null = null;
  try {
    const token = await projectToken(a);
    await seedFlags(a);
    const created = await expectStatus(
      201,
      'POST',
      `${a.baseUrl}/api/projects/1/feature_flags/`,
      a.headers,
      JSON.stringify({ key: PROBE_FLAG, filters: { groups: [{ properties: [], rollout_percentage: 0 }] } }),
    );
    const probeId = (created.body as { id: number }).id;
    b = await startAnotherNode(a, 'B', 2, roundRobin);
    const pollBody = JSON.stringify({ token, distinct_id: 'lag-poller', flag_keys_to_evaluate: [PROBE_FLAG] });
    const plan = evaluationPlan(token);
    const connections = Math.max(1, Math.round(settings.connections / 2));
    // Load on both nodes for as long as the changes take (stopped by the flag below).
    let loading = true;
    const keepLoading = async (baseUrl: string) => {
      let served = 0;
      let seconds = 0;
      while (loading) {
        const run = await runLoad({ baseUrl, headers: {} }, plan, { connections, durationSeconds: 2 }, 'lag load');
        served += run.totalRequests;
        seconds += 2;
      }
      return seconds === 0 ? 0 : served / seconds;
    };
    const loads = [keepLoading(a.baseUrl), keepLoading(b.baseUrl)];
    const acrossWorkers: number[] = [];
    const acrossNodes: number[] = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (let i = 0; i < changes; i++) {
        const enabled = i % 2 === 0;
        const body = JSON.stringify({ filters: { groups: [{ properties: [], rollout_percentage: enabled ? 100 : 0 }] } });
        await expectStatus(200, 'PATCH', `${a.baseUrl}/api/projects/1/feature_flags/${probeId}/`, a.headers, body);
        const since = performance.now();
        const [workers, nodes] = await Promise.all([lagOf(a.baseUrl, pollBody, enabled, since), lagOf(b.baseUrl, pollBody, enabled, since)]);
        acrossWorkers.push(workers);
        acrossNodes.push(nodes);
      }
    } finally {
      loading = false;
    }
    const [loadA, loadB] = await Promise.all(loads);
    const lag: Lag = {
      changes,
      acrossWorkers: percentiles(acrossWorkers),
      acrossNodes: percentiles(acrossNodes),
      loadRequestsPerSecond: { a: Math.round(loadA), b: Math.round(loadB) },
    };
    log(`SDK lag over ${changes} changes: across workers p50 ${lag.acrossWorkers.p50} / p99 ${lag.acrossWorkers.p99} ms, across nodes p50 ${lag.acrossNodes.p50} / p99 ${lag.acrossNodes.p99} ms`);
    return lag;
  } finally {
    await b?.stop();
    await a.stop();
  }
}

export const readYourWritesScenario: Scenario = {
  name: 'read-your-writes',
  async run(config: BenchConfig, log: Log) {
    const settings = measureSettingsOf(config);
    const baselineDir = process.env.BENCH_BASELINE_DIR?.trim() || null;
    const rounds = Math.max(1, Math.round(Number(process.env.BENCH_RYW_ROUNDS ?? 2)));
    const changes = Math.max(1, Math.round(Number(process.env.BENCH_LAG_CHANGES ?? 100)));
    const loadAtStart = os.loadavg().map(round2);
    const parts = (process.env.BENCH_RYW_PARTS ?? 'speed,lag').split(',').map((part) => part.trim());
    const speed = baselineDir && parts.includes('speed') ? await measureSpeed(config, baselineDir, rounds, log) : null;
    const lag = parts.includes('lag') ? await measureLag(config, changes, log) : null;
    const loadAtEnd = os.loadavg().map(round2);
    const mean = (list: OperationResult[]) => Math.round(list.reduce((sum, result) => sum + result.requestsPerSecond, 0) / list.length);
    const p99s = (list: OperationResult[]) => list.map((result) => result.latencyMs.p99).join(', ');
    const aims = [
      ...(speed ?? []).map((row) => ({ aim: `${row.operation} with WORKERS=2 at ≥ 0.8× the baseline`, pass: row.ratio >= 0.8, actual: `${row.ratio.toFixed(2)}×` })),
      ...(lag
        ? [{ aim: 'SDK lag p99 < 250 ms across workers and across nodes', pass: Math.max(lag.acrossWorkers.p99, lag.acrossNodes.p99) < 250, actual: `${Math.max(lag.acrossWorkers.p99, lag.acrossNodes.p99)} ms` }]
        : []),
    ];
    const report = [
      `read-your-writes: ${SEED_FLAGS} flags, ${settings.connections} connections, ${settings.durationSeconds} s per run; load average ${loadAtStart.join(' ')} at start, ${loadAtEnd.join(' ')} at end`,
      speed
        ? table([
            ['WORKERS=2', 'req/s this checkout', 'req/s baseline', 'ratio', 'p99 this / baseline (ms)'],
            ...speed.map((row) => [row.operation, `${mean(row.ours)}`, `${mean(row.baseline)}`, `${row.ratio.toFixed(2)}×`, `${p99s(row.ours)} / ${p99s(row.baseline)}`]),
          ])
        : 'speed: skipped (set BENCH_BASELINE_DIR to a checkout to compare with)',
      lag
        ? [
            table([
              [`SDK lag after a change through A (${lag.changes} changes, /flags?v=2 under load)`, 'p50', 'p99', 'max'],
              ["A's other worker", `${lag.acrossWorkers.p50} ms`, `${lag.acrossWorkers.p99} ms`, `${lag.acrossWorkers.max} ms`],
              ['node B', `${lag.acrossNodes.p50} ms`, `${lag.acrossNodes.p99} ms`, `${lag.acrossNodes.max} ms`],
            ]),
            `Background load meanwhile: A ${lag.loadRequestsPerSecond.a} req/s, B ${lag.loadRequestsPerSecond.b} req/s of /flags?v=2. Each lag includes one poll round trip on a new connection.`,
          ].join('\n')
        : 'SDK lag: skipped (BENCH_RYW_PARTS)',
      `Aims:\n${aims.map((aim) => `  ${aim.pass ? 'PASS' : 'MISS'}  ${aim.aim}: ${aim.actual}`).join('\n')}`,
    ].join('\n');
    return {
      file: 'read-your-writes',
      settings: { flags: SEED_FLAGS, rounds, changes, baselineDir, ...settings },
      report,
      data: { loadAverage: { start: loadAtStart, end: loadAtEnd }, speed, lag, aims },
    };
  },
};
