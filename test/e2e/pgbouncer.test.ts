// The service with DATABASE_URL through PgBouncer in transaction mode (Debian's pgbouncer) and
// DATABASE_LISTEN_URL straight to PostgreSQL: migrations, flag writes, /flags with stored
// persons, ingestion, and change notices from another process all work.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { CHANGES_CHANNEL } from '../../src/kernel/changes/bus.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort, startService, until, type Service } from './support/service.ts';

const PGBOUNCER = '/usr/sbin/pgbouncer';
const missing = !existsSync(PGBOUNCER);
if (missing) console.log(`# skipped: ${PGBOUNCER} is missing (apt-get install pgbouncer)`);

describe('DATABASE_URL through PgBouncer (transaction mode)', { skip: missing ? `${PGBOUNCER} is missing` : false, timeout: 3 * 60_000 }, () => {
  let db: TestDatabase;
  let dir: string;
  let bouncer: ChildProcess;
  let bouncerLog = '';
  let bouncerPort: number;
  let service: Service;
  const key = `phx_${'pgb'.repeat(4)}${Date.now().toString(36)}`;
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  before(async () => {
    db = await createTestDatabase({ migrate: false });
    dir = mkdtempSync(path.join(os.tmpdir(), 'bw-pgbouncer-'));
    chmodSync(dir, 0o755);
    bouncerPort = await freePort();
    const runningAsRoot = process.getuid?.() === 0;
    writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n', { mode: 0o644 });
    writeFileSync(
      path.join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        '* = host=127.0.0.1 port=5432',
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${bouncerPort}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${path.join(dir, 'users.txt')}`,
        'admin_users = postgres',
        'pool_mode = transaction',
        'default_pool_size = 2',
        'max_client_conn = 200',
        // PgBouncer refuses start-up settings it does not know; those listed here it accepts and drops (the service sends its timeouts that way).
        'ignore_startup_parameters = extra_float_digits,statement_timeout,lock_timeout,idle_in_transaction_session_timeout',
        // PgBouncer refuses to run as root; it switches to this user itself.
        ...(runningAsRoot ? ['user = postgres'] : []),
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    bouncer = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
    bouncer.stdout!.setEncoding('utf8').on('data', (chunk: string) => (bouncerLog += chunk));
    bouncer.stderr!.setEncoding('utf8').on('data', (chunk: string) => (bouncerLog += chunk));
    await until(() => /listening on 127\.0\.0\.1/.test(bouncerLog) || bouncer.exitCode !== null, 10_000, 'pgbouncer listening');
    assert.equal(bouncer.exitCode, null, bouncerLog);
    const throughBouncer = new URL(db.url);
    throughBouncer.port = String(bouncerPort);
    service = await startService({
      DATABASE_URL: throughBouncer.toString(),
      DATABASE_LISTEN_URL: db.url,
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_POOL_SIZE: '6',
      INIT_API_KEY: key,
      WORKERS: '1',
    });
  });

  after(async () => {
    const exit = await service?.stop();
    if (exit) assert.deepEqual(exit, { code: 0, signal: null }, service.output());
    bouncer?.kill('SIGINT');
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function send(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${service.url}${url}`, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  }

  test('writes, /flags with stored persons, ingestion, and a change from elsewhere heard over the LISTEN URL', async () => {
    const rollout = (percentage: number) => ({
      groups: [{ properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com' }], rollout_percentage: percentage }],
    });
    const created = await send('POST', '/api/projects/1/feature_flags/', { key: 'pooled', filters: rollout(100) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const list = await send('GET', '/api/projects/1/feature_flags/');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.results.map((flag: { key: string }) => flag.key), ['pooled']);

    const { rows } = await db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = 1');
    const token = rows[0].api_token;
    const batch = {
      api_key: token,
      batch: [
        { uuid: randomUUID(), event: '$identify', distinct_id: 'ada', properties: { $set: { email: 'ada@example.com' } } },
        { uuid: randomUUID(), event: '$feature_flag_called', distinct_id: 'ada', properties: { $feature_flag: 'pooled' } },
      ],
    };
    assert.equal((await send('POST', '/batch/', batch)).status, 200);
    const evaluate = async (distinctId: string) => (await send('POST', `/flags?v=2&token=${token}`, { distinct_id: distinctId })).body.flags.pooled.enabled;
    assert.equal(await evaluate('ada'), true, 'the person stored by ingestion matches');
    assert.equal(await evaluate('nobody'), false);
    // Many at once: the app's connections take turns on PgBouncer's few server connections, so a
    // statement prepared by name on one would be missing on another.
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => send('POST', `/flags?v=2&token=${token}`, { distinct_id: i % 2 ? 'ada' : `u${i}` })));
    assert.deepEqual(answers.map((answer) => answer.status), answers.map(() => 200), JSON.stringify(answers.find((answer) => answer.status !== 200)));

    // Another process changes the flag: the notice reaches this one over DATABASE_LISTEN_URL.
    await db.pool.query('UPDATE feature_flags SET filters = $1, version = version + 1 WHERE key = $2', [JSON.stringify(rollout(0)), 'pooled']);
    const notice = JSON.stringify({ origin: 'another-process', change: { kind: 'flag', projectId: 1, id: created.body.id } });
    await db.pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, notice]);
    await until(async () => (await evaluate('ada')) === false, 5_000, 'the change from elsewhere');

    await until(async () => (await send('GET', `/api/projects/1/feature_flags/${created.body.id}/`)).body.last_called_at !== null, 8_000, 'last_called_at');

    // The traffic did go through PgBouncer.
    const admin = new pg.Client({ host: '127.0.0.1', port: bouncerPort, user: 'postgres', database: 'pgbouncer' });
    await admin.connect();
    try {
      const stats = await admin.query<{ database: string; total_xact_count: string }>('SHOW STATS');
      const ours = stats.rows.find((row) => row.database === new URL(db.url).pathname.slice(1));
      assert.ok(ours && Number(ours.total_xact_count) > 10, JSON.stringify(stats.rows));
    } finally {
      await admin.end();
    }
  });
});
