/**
 * `ingestion` with `BENCH_BASELINE_DIR`: this checkout against a baseline checkout (e.g. the commit
 * before a change, built in another worktree with this one's node_modules), posthog-node only.
 * Both servers are up, each on its own database, for the whole run; the posthog-node window runs on
 * one, then the other, `BENCH_INGEST_PAIRS` times (3 by default), who goes first alternating, so
 * that a drift of the machine's speed weighs on both alike. The figure is the ratio of the medians.
 */
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { BenchConfig } from '../lib/config.ts';
import { expectStatus } from '../lib/http.ts';
import { untilUndisturbed } from '../lib/measure.ts';
import { table } from '../lib/report.ts';
import { startBellwether, type BellwetherTarget } from '../targets/bellwether.ts';
import type { IngestionResult, IngestionWindow } from './ingestion-window.ts';
import type { Log, ScenarioOutcome } from './scenario.ts';
import { median } from '../lib/median.ts';

export type PosthogNodeAttempt = (target: BellwetherTarget, token: string, pool: pg.Pool, seed: number) => Promise<IngestionWindow & { details: Record<string, unknown> }>;

interface Side {
  name: string;
  target: BellwetherTarget;
  pool: pg.Pool;
  token: string;
  windows: IngestionResult[];
}

async function side(config: BenchConfig, name: string, root?: string): Promise<Side> {
  const target = await startBellwether(config.adminDatabaseUrl, root ? { root } : {});
  const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 1 });
  const project = await expectStatus(200, 'GET', `${target.baseUrl}/api/projects/1/`, target.headers);
  const token = (project.body as { api_token?: unknown }).api_token;
  if (typeof token !== 'string' || !token.startsWith('phc_')) throw new Error(`${name}: project 1 has no phc_ token`);
  return { name, target, pool, token, windows: [] };
}

export async function ingestionAgainstBaseline(
  config: BenchConfig,
  log: Log,
  baselineDir: string,
  settings: { clients: number; durationSeconds: number; warmupSeconds: number; distinctIds: number; maxForeignCpuPercent: number; retries: number },
  attempt: PosthogNodeAttempt,
): Promise<ScenarioOutcome> {
  const pairs = Math.max(1, Math.round(Number(process.env.BENCH_INGEST_PAIRS ?? '3')) || 3);
  const sides: Side[] = [];
  try {
    log(`ingestion: this checkout against the baseline in ${baselineDir}, posthog-node ×${settings.clients}, ${pairs} pairs`);
    sides.push(await side(config, 'this checkout'));
    sides.push(await side(config, `baseline (${path.basename(baselineDir)})`, baselineDir));
    const load: number[][] = [];
    let seed = 1;
    for (let pair = 0; pair < pairs; pair++) {
      const order = pair % 2 === 0 ? [sides[1], sides[0]] : [sides[0], sides[1]];
      for (const s of order) {
        load.push(os.loadavg());
        const label = `${s.name} posthog-node ×${settings.clients}`;
        const result = await untilUndisturbed(s.target, settings, label, log, () => attempt(s.target, s.token, s.pool, seed++));
        log(`${label} (pair ${pair + 1}): ${result.eventsPerSecond} events/s${result.disturbed ? ' DISTURBED' : ''}`);
        s.windows.push(result);
      }
    }
    load.push(os.loadavg());
    const [current, baseline] = sides;
    const rate = (s: Side) => s.windows.map((w) => w.eventsPerSecond);
    const ratio = median(rate(current)) / median(rate(baseline));
    const advisory = (w: IngestionResult) => (w.pgWaits ? String(w.pgWaits.averageConnections['waiting Lock/advisory'] ?? 0) : '?');
    const rows = [['server', ...Array.from({ length: pairs }, (_, i) => `pair ${i + 1}`), 'median events/s', 'Lock/advisory (per window)', 'other work % (per window)']];
    for (const s of sides) {
      rows.push([s.name, ...rate(s).map(String), String(median(rate(s))), s.windows.map(advisory).join(' / '), s.windows.map((w) => String(w.cpu?.foreignPercent ?? '?')).join(' / ')]);
    }
    const report = [
      `Ingestion through posthog-node (${settings.clients} clients, ${settings.distinctIds} distinct ids, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s per window), this checkout against a baseline, alternating`,
      table(rows),
      `ratio of the medians (this / baseline): ${ratio.toFixed(2)}×`,
      `load average at each window's start and the end: ${load.map((l) => l.map((n) => n.toFixed(1)).join('/')).join(', ')}`,
    ].join('\n');
    return {
      file: 'ingestion-baseline',
      settings: { ...settings, pairs, baseline: baselineDir },
      report,
      data: { ratio, current: current.windows, baseline: baseline.windows, load },
    };
  } finally {
    for (const s of sides) {
      await s.pool.end().catch(() => undefined);
      await s.target.stop();
    }
  }
}
