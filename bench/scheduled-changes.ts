/**
 * Scheduled changes across two nodes: 10 000 changes falling due at once on 200 flags, drained by
 * two server processes on one database; the rate, that none was applied twice (one activity entry
 * per change), and flag PATCH latency on node A idle vs during the drain. Then the approval gate's
 * cost on an edit no policy covers, in-process. `npx tsx bench/scheduled-changes.ts`
 * (BENCH_DATABASE_URL: the admin connection, default postgres://postgres@127.0.0.1:5432/test;
 * BENCH_SERVER_ROOT: another checkout whose servers to run, for a before/after in one sitting;
 * BENCH_SCHED_CHANGES: how many changes, default 10 000; BENCH_SERVER_NODE_ARGS: extra `node` options
 * for the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). During the drain it also records where
 * the time went: the servers' and PostgreSQL's CPU, and what the database connections waited on.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { approvalGate } from '../src/approvals/gate.ts';
import { UnitsOfWork } from '../src/db/unit-of-work.ts';
import type { FlagRecord } from '../src/flags/record.ts';
import { freePort, spawnService, type ServiceProcess } from './lib/child.ts';
import { runCleanups } from './lib/cleanup.ts';
import { processCpuSeconds, watchCpu } from './lib/cpu-monitor.ts';
import { createBenchDatabase } from './lib/database.ts';
import { describePgWaits, samplePgWaits } from './lib/pg-waits.ts';
import { expectStatus, request } from './lib/http.ts';

const ROOT = process.env.BENCH_SERVER_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CHANGES = Number(process.env.BENCH_SCHED_CHANGES ?? 10_000);
const FLAGS = 200;

async function node(name: string, databaseUrl: string, apiKey: string): Promise<{ baseUrl: string; process: ServiceProcess }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const running = await spawnService({
    name,
    command: process.execPath,
    args: [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), '--import', 'tsx', 'src/main.ts'],
    cwd: ROOT,
    env: { DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', INIT_API_KEY: apiKey, LOG_LEVEL: 'warn', NODE_ENV: 'production', WORKERS: '1', SCHEDULED_CHANGES_INTERVAL_MS: '500' },
    readyUrl: `${baseUrl}/_health`,
  });
  return { baseUrl, process: running };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function patchLatencies(url: string, headers: Record<string, string>, until: () => boolean, max: number): Promise<number[]> {
  const out: number[] = [];
  for (let n = 0; n < max && !until(); n += 1) {
    const started = performance.now();
    const response = await request('PATCH', url, headers, JSON.stringify({ name: `n${n}` }));
    if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${response.text}`);
    out.push(performance.now() - started);
  }
  return out;
}

async function main(): Promise<void> {
  const db = await createBenchDatabase(ADMIN, 'sched');
  const apiKey = `phx_bench_${randomBytes(24).toString('base64url')}`;
  const headers = { authorization: `Bearer ${apiKey}` };
  const a = await node('A', db.url, apiKey);
  const b = await node('B', db.url, apiKey);
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    const { rows: [project] } = await pool.query<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1');
    const flagsUrl = `${a.baseUrl}/api/projects/${project.id}/feature_flags/`;
    for (let i = 0; i < FLAGS; i += 1) {
      await expectStatus(201, 'POST', flagsUrl, headers, JSON.stringify({ key: `bench-${i}`, active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }));
    }
    const edited = (await expectStatus(201, 'POST', flagsUrl, headers, JSON.stringify({ key: 'edited-by-hand' }))).body as { id: number };
    const editUrl = `${flagsUrl}${edited.id}/`;
    const idle = await patchLatencies(editUrl, headers, () => false, 300);

    const dueAt = new Date(Date.now() + 4000);
    await pool.query(
      `INSERT INTO scheduled_changes (project_id, record_id, model_name, payload, scheduled_at, created_by_id, timezone)
       SELECT $1, f.id::text, 'FeatureFlag', jsonb_build_object('operation', 'update_status', 'value', n % 2 = 1), $2,
              (SELECT id FROM users ORDER BY id LIMIT 1), 'UTC'
         FROM generate_series(0, $3 - 1) AS n JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM feature_flags WHERE key LIKE 'bench-%') f ON f.k = n % $4`,
      [project.id, dueAt, CHANGES, FLAGS],
    );
    await sleep(Math.max(0, dueAt.getTime() - Date.now()));
    const endWaits = await samplePgWaits(db.url);
    const endCpu = watchCpu({ pid: a.process.pid, databaseName: db.name });
    const cpuBefore = { a: processCpuSeconds(a.process.pid), b: processCpuSeconds(b.process.pid) };
    let done = false;
    let finishedAt = 0;
    const watcher = (async () => {
      while (!done) {
        const { rows } = await pool.query<{ left: number }>('SELECT count(*)::int AS left FROM scheduled_changes WHERE executed_at IS NULL');
        if (rows[0].left === 0) {
          finishedAt = Date.now();
          done = true;
          break;
        }
        await sleep(50);
      }
    })();
    const during = await patchLatencies(editUrl, headers, () => done, 100_000);
    await watcher;
    const cpu = endCpu();
    const waits = await endWaits();
    const serverCpuSeconds = { a: +(processCpuSeconds(a.process.pid) - cpuBefore.a).toFixed(2), b: +(processCpuSeconds(b.process.pid) - cpuBefore.b).toFixed(2) };
    const seconds = (finishedAt - dueAt.getTime()) / 1000;
    const { rows: [check] } = await pool.query<{ entries: number; distinct: number; failed: number }>(
      `SELECT (SELECT count(*)::int FROM activity_log WHERE detail->'trigger'->>'job_type' = 'scheduled_change') AS entries,
              (SELECT count(DISTINCT detail->'trigger'->>'job_id')::int FROM activity_log WHERE detail->'trigger'->>'job_type' = 'scheduled_change') AS distinct,
              (SELECT count(*)::int FROM scheduled_changes WHERE failure_reason IS NOT NULL) AS failed`,
    );
    const { rows: [versions] } = await pool.query<{ total: number }>(`SELECT sum(version)::int AS total FROM feature_flags WHERE key LIKE 'bench-%'`);

    // The gate on an edit no policy covers (a toggle: one indexed read), in-process on the same database.
    let gateMs = 0;
    const flag = { id: edited.id, key: 'edited-by-hand', active: true, filters: { groups: [] }, version: 1, updated_at: new Date() } as unknown as FlagRecord;
    const edit = { projectId: project.id, before: flag, next: { ...flag, active: false } as never, body: { active: false }, actor: { id: 1 } as never, organizationLevel: 'member' as const, httpMethod: 'PATCH' as const };
    // One read-only unit of work (a transaction) around the timed calls, as an edit's gate runs in one.
    await new UnitsOfWork(pool).run(async (unit) => {
      for (let i = 0; i < 200; i += 1) await approvalGate(unit, edit);
      const started = performance.now();
      for (let i = 0; i < 2000; i += 1) await approvalGate(unit, edit);
      gateMs = (performance.now() - started) / 2000;
    });

    const result = {
      changes: CHANGES,
      nodes: 2,
      drainSeconds: Number(seconds.toFixed(2)),
      perSecond: Math.round(CHANGES / seconds),
      activityEntries: check.entries,
      distinctChangesInActivity: check.distinct,
      failed: check.failed,
      flagVersionsAdded: versions.total - FLAGS,
      patchIdle: { n: idle.length, p50: +percentile(idle, 50).toFixed(2), p99: +percentile(idle, 99).toFixed(2) },
      patchDuringDrain: { n: during.length, p50: +percentile(during, 50).toFixed(2), p99: +percentile(during, 99).toFixed(2) },
      gateMsPerUncoveredToggle: +gateMs.toFixed(3),
      drain: {
        serverCpuSeconds,
        serverCpuMsPerChange: +((1000 * (serverCpuSeconds.a + serverCpuSeconds.b)) / CHANGES).toFixed(3),
        machine: cpu,
        pgConnections: waits.averageConnections,
      },
      loadAverage: (await import('node:os')).loadavg().map((n) => +n.toFixed(2)),
      serverRoot: ROOT,
    };
    console.log(JSON.stringify(result, null, 2));
    console.log(`database during the drain: ${describePgWaits(waits)}`);
    console.log(`${result.perSecond >= 500 ? 'PASS' : 'MISS'} drain ≥ 500/s; ${check.entries === CHANGES && check.distinct === CHANGES ? 'PASS' : 'MISS'} each applied once; ${result.patchDuringDrain.p99 < 2 * result.patchIdle.p99 ? 'PASS' : 'MISS'} PATCH p99 during < 2× idle; ${gateMs < 1 ? 'PASS' : 'MISS'} gate < 1 ms`);
  } finally {
    await pool.end();
    await a.process.stop();
    await b.process.stop();
    await db.drop();
    await runCleanups(() => {});
  }
}

await main();
