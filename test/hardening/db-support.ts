/**
 * Database-fault tests: an app on a pool of its own (small, short timeouts), the load that runs
 * beside a fault (events through /batch/, evaluations through /flags), what came back, and a TCP
 * proxy that can stop forwarding (a connection that hangs without closing).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type DatabaseTimeouts, type Pool } from '../../src/db/pool.ts';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { bootstrap } from '../../src/accounts/bootstrap.ts';

/** Short enough for a test of a few seconds, long enough for a loaded two-core machine. */
export const FAST_TIMEOUTS: DatabaseTimeouts = { connectMs: 1_000, statementMs: 3_000, lockMs: 800, idleInTransactionMs: 10_000 };
export const FAST_BUS = { heartbeatMs: 200, heartbeatTimeoutMs: 400, reconnectInitialMs: 50, reconnectMaxMs: 400 };

export interface FaultApp {
  app: FastifyInstance;
  pool: Pool;
  key: string;
  token: string;
  projectId: number;
  /** Connection errors the pool reported (the process lived through each). */
  connectionErrors: Error[];
  close(): Promise<void>;
}

export interface FaultAppOptions {
  /** The database for the app's pool; the change listener's too unless `busUrl` says otherwise. */
  url: string;
  busUrl?: string;
  poolSize?: number;
  timeouts?: DatabaseTimeouts;
  /** Another app on the same database already migrated it and made the project and key: reuse them. */
  sameDatabaseAs?: FaultApp;
  app?: Partial<AppOptions>;
}

export async function startFaultApp(options: FaultAppOptions): Promise<FaultApp> {
  const connectionErrors: Error[] = [];
  const timeouts = options.timeouts ?? FAST_TIMEOUTS;
  const pool = createPool(options.url, options.poolSize ?? 4, { timeouts, onConnectionError: (error) => connectionErrors.push(error) });
  let key: string;
  let projectId: number;
  if (options.sameDatabaseAs) {
    ({ key, projectId } = options.sameDatabaseAs);
  } else {
    key = generateSecret(PERSONAL_KEY_PREFIX);
    await migrate(pool);
    ({ projectId } = await bootstrap(pool, key));
  }
  const { rows } = await pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [projectId]);
  const app = await buildApp({
    pool,
    databaseUrl: options.busUrl ?? options.url,
    databaseTimeouts: timeouts,
    changeBus: FAST_BUS,
    ...options.app,
  });
  await app.ready();
  return {
    app,
    pool,
    key,
    token: rows[0].api_token,
    projectId,
    connectionErrors,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}

/** Runs SQL on a connection of its own (the fault's side: locks, killing backends). */
export async function adminClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Ends every connection to `database` but the admin's own; answers how many. */
export async function terminateBackends(admin: pg.Client, database: string, filter = 'true'): Promise<number> {
  const { rows } = await admin.query<{ killed: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS killed
       FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND ${filter}`,
    [database],
  );
  return rows[0].killed;
}

export const databaseOf = (url: string) => new URL(url).pathname.slice(1);

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; fails after `withinMs`. Answers the milliseconds it took. */
export async function until(check: () => boolean | Promise<boolean>, withinMs: number, what: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > withinMs) assert.fail(`${what}: not within ${withinMs} ms`);
    await sleep(25);
  }
}

export interface LoadResult {
  requests: number;
  /** status → count, per endpoint. */
  statuses: Record<string, Record<number, number>>;
  /** Uuids of events a 200 acknowledged. */
  acknowledged: string[];
  /** The slowest answer (ms). */
  slowestMs: number;
  /** Bodies of answers that were neither 200 nor 503 (at most a few). */
  unexpected: string[];
}

export function emptyLoad(): LoadResult {
  return { requests: 0, statuses: {}, acknowledged: [], slowestMs: 0, unexpected: [] };
}

function record(result: LoadResult, endpoint: string, response: LightMyRequestResponse, ms: number): void {
  result.requests++;
  const byStatus = (result.statuses[endpoint] ??= {});
  byStatus[response.statusCode] = (byStatus[response.statusCode] ?? 0) + 1;
  result.slowestMs = Math.max(result.slowestMs, ms);
  if (response.statusCode !== 200 && response.statusCode !== 503 && result.unexpected.length < 5) {
    result.unexpected.push(`${endpoint} ${response.statusCode} ${response.body.slice(0, 300)}`);
  }
  if (response.statusCode === 503) {
    const body = response.json() as { code?: string };
    if (endpoint !== '/_readyz' && body.code !== 'database_unavailable' && result.unexpected.length < 5) {
      result.unexpected.push(`${endpoint} 503 ${response.body.slice(0, 300)}`);
    }
    if (endpoint !== '/_readyz' && response.headers['retry-after'] === undefined && result.unexpected.length < 5) {
      result.unexpected.push(`${endpoint} 503 without Retry-After`);
    }
  }
}

/** One /batch/ of `size` events; their uuids count as acknowledged only on a 200. */
export async function sendBatch(t: FaultApp, result: LoadResult, size = 3): Promise<LightMyRequestResponse> {
  const distinctId = `user-${randomUUID()}`;
  const batch = Array.from({ length: size }, (_, i) => ({
    uuid: randomUUID(),
    event: i === 0 ? '$identify' : 'clicked',
    distinct_id: distinctId,
    timestamp: new Date().toISOString(),
    properties: i === 0 ? { $set: { plan: 'pro' } } : { n: i },
  }));
  const started = Date.now();
  const response = await t.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: t.token, batch } });
  record(result, '/batch/', response, Date.now() - started);
  if (response.statusCode === 200) result.acknowledged.push(...batch.map((event) => event.uuid));
  return response;
}

export async function askFlags(t: FaultApp, result: LoadResult): Promise<LightMyRequestResponse> {
  const started = Date.now();
  const response = await t.app.inject({
    method: 'POST',
    url: '/flags/?v=2',
    payload: { token: t.token, distinct_id: `user-${randomUUID()}` },
  });
  record(result, '/flags', response, Date.now() - started);
  return response;
}

export async function askReady(t: FaultApp, result: LoadResult): Promise<LightMyRequestResponse> {
  const started = Date.now();
  const response = await t.app.inject({ method: 'GET', url: '/_readyz' });
  record(result, '/_readyz', response, Date.now() - started);
  return response;
}

/** `workers` loops of /batch/ and /flags until `stop()` says so. */
export async function runLoad(t: FaultApp, result: LoadResult, workers: number, stop: () => boolean): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (!stop()) {
        if (worker % 2 === 0) await sendBatch(t, result);
        else await askFlags(t, result);
      }
    }),
  );
}

/** Every acknowledged uuid is stored (read on a connection of the test's own). */
export async function assertStored(url: string, acknowledged: string[]): Promise<void> {
  const client = await adminClient(url);
  try {
    const { rows } = await client.query<{ stored: number }>('SELECT count(*)::int AS stored FROM events WHERE uuid = ANY($1::uuid[])', [acknowledged]);
    assert.equal(rows[0].stored, acknowledged.length, 'every event acknowledged with a 200 is stored');
  } finally {
    await client.end();
  }
}

export function summary(result: LoadResult): string {
  const parts = Object.entries(result.statuses).map(
    ([endpoint, byStatus]) => `${endpoint} ${Object.entries(byStatus).map(([status, count]) => `${status}×${count}`).join(' ')}`,
  );
  return `${result.requests} requests (${parts.join('; ')}), ${result.acknowledged.length} events acknowledged, slowest ${result.slowestMs} ms`;
}

/**
 * A TCP proxy to PostgreSQL whose open connections can be frozen: bytes stop flowing both ways
 * but nothing closes, as with a network partition. New connections flow normally.
 */
export class FreezingProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket; frozen: boolean }>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      const pair = { client, upstream, frozen: false };
      this.pairs.add(pair);
      client.on('data', (chunk) => {
        if (!pair.frozen) upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        if (!pair.frozen) client.write(chunk);
      });
      const close = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', close).on('error', close);
      upstream.on('close', close).on('error', close);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Stops every connection open now from carrying anything. */
  freeze(): number {
    for (const pair of this.pairs) pair.frozen = true;
    return this.pairs.size;
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
