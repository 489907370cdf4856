// The change counters read on a connection of their own: the same answers as the pool, current
// after each write, and the pool answering whenever that connection is not open.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { CounterConnection, counterParameters, encodeRead } from '../../src/kernel/changes/counter-connection.ts';
import { ChangeCounters, flagsCounter, readCounters } from '../../src/kernel/changes/counters.ts';
import { databaseOf, FreezingProxy, terminateBackends } from '../hardening/db-support.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ADMIN_URL, type TestDatabase } from '../helpers/database.ts';
import { sleep } from '../helpers/eventually.ts';

let t: TestApp;
let db: TestDatabase;
let admin: pg.Client;
/** Two projects, their flag counts set to 5 and 9. */
let p1: number;
let p2: number;

before(async () => {
  t = await startTestApp();
  db = t.db;
  p1 = t.projectId;
  const second = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Second' } });
  assert.equal(second.statusCode, 201, second.body);
  p2 = second.json().id;
  admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await db.pool.query(
    'INSERT INTO flag_change_counters (project_id, counter) VALUES ($1, 5), ($2, 9) ON CONFLICT (project_id) DO UPDATE SET counter = EXCLUDED.counter',
    [p1, p2],
  );
});

after(async () => {
  await admin.end();
  await t.close();
});

/** Reads once the connection is open (the first read only starts opening it and is refused). */
async function readWhenOpen(connection: CounterConnection, projectIds: number[], auth: boolean) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connection.read(projectIds, auth);
    } catch (error) {
      if (attempt > 100) throw error;
      await sleep(50);
    }
  }
}

/** Until a read fails (the killed connection is noticed). */
async function untilRefused(connection: CounterConnection): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (!(await connection.read([p2], false).then(() => true, () => false))) return;
    await sleep(20);
  }
  assert.fail('the killed connection still answers');
}

async function counterConnections(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'bellwether counters'",
  );
  return rows[0].n;
}

const sorted = (rows: [string, number][]) => [...rows].sort((a, b) => a[0].localeCompare(b[0]));

test('the parameters travel as text: an int array literal and a boolean', () => {
  assert.deepEqual(counterParameters([1, 22], true), ['{1,22}', 't']);
  assert.deepEqual(counterParameters([], false), ['{}', 'f']);
  // Bind ('B'), then Execute ('E') and Sync ('S'), each with its length.
  const bytes = encodeRead(['{1}', 't']);
  assert.equal(String.fromCharCode(bytes[0]), 'B');
  assert.equal(bytes.readInt32BE(1) + 1 + 10 + 5, bytes.length);
  assert.equal(String.fromCharCode(bytes[bytes.length - 5]), 'S');
});

test('the first read is refused while the connection opens; then each read answers what is committed, as the pool does', async () => {
  const before = await counterConnections();
  const connection = new CounterConnection(db.url);
  try {
    await assert.rejects(connection.read([p1], true), /not open/);
    const authCount = (await readCounters(db.pool, ['auth'])).get('auth');
    assert.deepEqual(sorted(await readWhenOpen(connection, [p1, p2, 999999], true)), [
      ['auth', authCount!],
      [`flags:${p1}`, 5],
      [`flags:${p2}`, 9],
    ]);
    await db.pool.query('UPDATE flag_change_counters SET counter = counter + 1 WHERE project_id = $1', [p1]);
    assert.deepEqual(await connection.read([p1], false), [[`flags:${p1}`, 6]]);
    // Another set of parameters on the prepared statement; the first set again.
    assert.deepEqual(await connection.read([], false), []);
    assert.deepEqual(await connection.read([p1], false), [[`flags:${p1}`, 6]]);
    // One connection of its own, beside the test app's.
    assert.equal(await counterConnections(), before + 1);
  } finally {
    await connection.close();
  }
});

test('a killed connection: the read under way or the next fails, a new connection is opened and prepares the statement again', async () => {
  const connection = new CounterConnection(db.url);
  try {
    await readWhenOpen(connection, [p2], false);
    assert.ok((await terminateBackends(admin, databaseOf(db.url), "application_name = 'bellwether counters'")) >= 1);
    await untilRefused(connection);
    assert.deepEqual(await readWhenOpen(connection, [p2], false), [[`flags:${p2}`, 9]]);
  } finally {
    await connection.close();
  }
});

test('ChangeCounters with the connection: the pool answers while it is not open, and both give the same counts', async () => {
  const connection = new CounterConnection(db.url);
  const counters = new ChangeCounters(db.pool, connection);
  try {
    // Not open yet: answered by the pool.
    assert.equal(await counters.get(flagsCounter(p2)), 9);
    await readWhenOpen(connection, [], false);
    await db.pool.query('UPDATE flag_change_counters SET counter = counter + 1 WHERE project_id = $1', [p2]);
    assert.equal(await counters.get(flagsCounter(p2)), 10);
    // A project never written: 0.
    assert.equal(await counters.get(flagsCounter(999999)), 0);
    await terminateBackends(admin, databaseOf(db.url), "application_name = 'bellwether counters'");
    await db.pool.query('UPDATE flag_change_counters SET counter = counter + 1 WHERE project_id = $1', [p2]);
    // Whichever answers (the dying connection refuses, the pool reads), the count is the new one.
    assert.equal(await counters.get(flagsCounter(p2)), 11);
  } finally {
    await connection.close();
  }
});

test('a connection that hangs without closing: the read fails after the timeout, and the pool answers meanwhile', async () => {
  const target = new URL(db.url);
  const proxy = new FreezingProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.listen();
  const viaProxy = new URL(db.url);
  viaProxy.port = String(proxy.port);
  const connection = new CounterConnection(viaProxy.toString(), undefined, 300);
  const counters = new ChangeCounters(db.pool, connection);
  try {
    await readWhenOpen(connection, [p2], false);
    assert.equal(proxy.freeze(), 1);
    await assert.rejects(connection.read([p2], false), /did not answer within 300 ms/);
    const { rows } = await db.pool.query<{ counter: number }>('SELECT counter FROM flag_change_counters WHERE project_id = $1', [p2]);
    assert.equal(await counters.get(flagsCounter(p2)), Number(rows[0].counter));
  } finally {
    await connection.close();
    await proxy.close();
  }
});

test('a closed connection never opens again: every read goes to the pool', async () => {
  const connection = new CounterConnection(db.url);
  await connection.close();
  await assert.rejects(connection.read([p1], false));
  const counters = new ChangeCounters(db.pool, connection);
  assert.equal(await counters.get(flagsCounter(p1)), 6);
});
