// Database faults on the machine's PostgreSQL (never restarted here: see db-restart.test.ts for a
// server of the test's own): killed connections under load, a held lock, an exhausted pool, and
// the change listener losing its connection (killed, or silently hung).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import {
  adminClient,
  askFlags,
  askReady,
  assertStored,
  databaseOf,
  emptyLoad,
  FAST_TIMEOUTS,
  FreezingProxy,
  runLoad,
  sendBatch,
  sleep,
  startFaultApp,
  summary,
  terminateBackends,
  until,
  type FaultApp,
} from './db-support.ts';

let db: TestDatabase;
let a: FaultApp;
let flagId: number;

async function flagActive(t: FaultApp): Promise<boolean> {
  const response = await t.app.inject({
    method: 'GET',
    url: `/api/projects/${t.projectId}/feature_flags/${flagId}/`,
    headers: { authorization: `Bearer ${t.key}` },
  });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { active: boolean }).active;
}

async function setActive(t: FaultApp, active: boolean): Promise<void> {
  const response = await t.app.inject({
    method: 'PATCH',
    url: `/api/projects/${t.projectId}/feature_flags/${flagId}/`,
    headers: { authorization: `Bearer ${t.key}` },
    payload: { active },
  });
  assert.equal(response.statusCode, 200, response.body);
}

before(async () => {
  db = await createTestDatabase({ migrate: false });
  a = await startFaultApp({ url: db.url });
  const created = await a.app.inject({
    method: 'POST',
    url: `/api/projects/${a.projectId}/feature_flags/`,
    headers: { authorization: `Bearer ${a.key}` },
    payload: { key: 'beta', filters: { groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 50 }] } },
  });
  assert.equal(created.statusCode, 201, created.body);
  flagId = (created.json() as { id: number }).id;
});

after(async () => {
  await a?.close();
  await db?.drop();
});

describe('database faults', () => {
  test('connections killed again and again under /batch/ and /flags load: only 200s and 503s, nothing acknowledged that was not stored', async (t) => {
    const admin = await adminClient(db.url);
    const result = emptyLoad();
    let stop = false;
    let kills = 0;
    const killer = (async () => {
      while (!stop) {
        kills += await terminateBackends(admin, databaseOf(db.url));
        await sleep(120);
      }
    })();
    const load = runLoad(a, result, 8, () => stop);
    await sleep(2_000);
    stop = true;
    await Promise.all([load, killer]);
    await admin.end();

    // Recovery: the next requests are served, and the change listener is back.
    const recoveredIn = await until(async () => (await sendBatch(a, result)).statusCode === 200, 3_000, 'a /batch/ after the kills');
    await until(() => a.app.changeBus.listening, 3_000, 'the change listener reconnects');
    t.diagnostic(`${kills} backends killed in 2 s; ${summary(result)}; first 200 after the kills in ${recoveredIn} ms; bus lost ${a.app.changeBus.stats.lost}× reconnected ${a.app.changeBus.stats.reconnected}×`);

    assert.deepEqual(result.unexpected, []);
    assert.ok(kills > 0, 'backends were killed');
    assert.ok((result.statuses['/batch/']?.[503] ?? 0) > 0, 'some /batch/ met a killed connection and said 503');
    assert.ok(result.acknowledged.length > 0, 'some batches were stored between the kills');
    assert.ok(a.app.changeBus.stats.reconnected >= 1);
    await assertStored(db.url, result.acknowledged);
    assert.equal((await askReady(a, result)).statusCode, 200);
  });

  test('a table lock held elsewhere: /batch/ answers 503 within the lock timeout; /_readyz answers within 2 s under the queue it causes; /_health stays 200', async (t) => {
    const admin = await adminClient(db.url);
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE events, persons IN ACCESS EXCLUSIVE MODE');
    const result = emptyLoad();
    try {
      const single = emptyLoad();
      const started = Date.now();
      const response = await sendBatch(a, single);
      const tookMs = Date.now() - started;
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.headers['retry-after'], '5');
      assert.deepEqual(response.json(), {
        type: 'server_error',
        code: 'database_unavailable',
        detail: 'The database is unavailable or did not answer in time. Please try again shortly.',
        attr: null,
      });
      assert.ok(tookMs < FAST_TIMEOUTS.lockMs + 700, `503 after ${tookMs} ms (lock timeout ${FAST_TIMEOUTS.lockMs} ms)`);

      // Many waiting requests hold every connection (each for the lock timeout, a queue several
      // times the pool deep): readiness answers within its bound, 503 unless a connection came
      // free in time (the queue moves as waiters give up; `SELECT 1` itself needs no lock). The
      // pool held outright, below, always gives 503.
      let stop = false;
      const load = runLoad(a, result, 24, () => stop);
      await sleep(300);
      const readyStarted = Date.now();
      const ready = await askReady(a, result);
      const readyMs = Date.now() - readyStarted;
      const healthStarted = Date.now();
      const health = await a.app.inject({ method: 'GET', url: '/_health' });
      const healthMs = Date.now() - healthStarted;
      stop = true;
      await load;
      t.diagnostic(`one /batch/ under the lock: 503 in ${tookMs} ms; /_readyz ${ready.statusCode} in ${readyMs} ms, /_health ${health.statusCode} in ${healthMs} ms; load ${summary(result)}`);
      assert.ok([200, 503].includes(ready.statusCode), ready.body);
      assert.ok(readyMs < 2_000, `/_readyz answered in ${readyMs} ms`);
      assert.equal(health.statusCode, 200);
      assert.ok(healthMs < 100, `/_health answered in ${healthMs} ms`);
      assert.deepEqual(result.unexpected, []);
      assert.ok(result.slowestMs < FAST_TIMEOUTS.lockMs + FAST_TIMEOUTS.connectMs + 1_000, `slowest answer ${result.slowestMs} ms`);
    } finally {
      await admin.query('ROLLBACK');
      await admin.end();
    }
    await assertStored(db.url, result.acknowledged);
    assert.equal((await sendBatch(a, emptyLoad())).statusCode, 200);
  });

  test('every pooled connection held: requests answer 503 after the connection wait, not a hang; then serve again', async (t) => {
    const held = await Promise.all(Array.from({ length: 4 }, () => a.pool.connect()));
    const result = emptyLoad();
    try {
      const started = Date.now();
      const [batch, flags, ready] = await Promise.all([sendBatch(a, result), askFlags(a, result), askReady(a, result)]);
      const tookMs = Date.now() - started;
      t.diagnostic(`pool of 4 held: /batch/ ${batch.statusCode}, /flags ${flags.statusCode}, /_readyz ${ready.statusCode}, all within ${tookMs} ms`);
      assert.equal(batch.statusCode, 503, batch.body);
      assert.equal(ready.statusCode, 503, ready.body);
      // /flags needs the database only for what it has not cached: a 200 from memory is fine too.
      assert.ok([200, 503].includes(flags.statusCode), flags.body);
      assert.ok(tookMs < FAST_TIMEOUTS.connectMs + 1_000, `answered in ${tookMs} ms`);
      assert.deepEqual(result.unexpected, []);
    } finally {
      for (const client of held) client.release();
    }
    assert.equal((await sendBatch(a, emptyLoad())).statusCode, 200);
    assert.equal((await askReady(a, emptyLoad())).statusCode, 200);
  });

  test('every pooled connection held: other ingestion paths, a management write and an unknown key answer 503 too (never 401 or 200)', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => a.pool.connect()));
    try {
      const event = () => ({ event: 'clicked', distinct_id: 'someone', uuid: randomUUID(), properties: { token: a.token } });
      const answers = await Promise.all([
        a.app.inject({ method: 'POST', url: '/e/', payload: [event()] }),
        a.app.inject({ method: 'POST', url: '/capture/', payload: { api_key: a.token, ...event() } }),
        a.app.inject({ method: 'POST', url: '/i/v0/e/', payload: { api_key: a.token, batch: [event()] } }),
        a.app.inject({
          method: 'POST',
          url: `/api/projects/${a.projectId}/feature_flags/`,
          headers: { authorization: `Bearer ${a.key}` },
          payload: { key: 'written-while-busy', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } },
        }),
        // An unknown key needs the database to be told apart from a known one: not a 401.
        a.app.inject({
          method: 'GET',
          url: `/api/projects/${a.projectId}/feature_flags/`,
          headers: { authorization: `Bearer ${generateSecret(PERSONAL_KEY_PREFIX)}` },
        }),
      ]);
      for (const answer of answers) {
        assert.equal(answer.statusCode, 503, answer.body);
        assert.equal((answer.json() as { code: string }).code, 'database_unavailable');
        assert.equal(answer.headers['retry-after'], '5');
      }
    } finally {
      for (const client of held) client.release();
    }
    const { rows } = await a.pool.query("SELECT count(*)::int AS n FROM feature_flags WHERE key = 'written-while-busy'");
    assert.equal(rows[0].n, 0);
  });

  test('the change listener killed: it reconnects and a flag change by another process reaches this one', async (t) => {
    const b = await startFaultApp({ url: db.url, sameDatabaseAs: a });
    const admin = await adminClient(db.url);
    try {
      await setActive(a, true);
      assert.equal(await flagActive(a), true);
      const before = a.app.changeBus.stats.reconnected;
      // Both processes' listeners go; each reconnects on its own.
      const killed = await terminateBackends(admin, databaseOf(db.url), "application_name = 'bellwether listener'");
      assert.ok(killed >= 2, `${killed} listeners killed`);
      const backIn = await until(() => a.app.changeBus.stats.reconnected > before && a.app.changeBus.listening, 3_000, 'reconnect');
      await setActive(b, false);
      const seenIn = await until(async () => (await flagActive(a)) === false, 2_000, "B's change reaches A's cache");
      t.diagnostic(`listener back in ${backIn} ms; B's change seen by A ${seenIn} ms after it`);
    } finally {
      await admin.end();
      await b.close();
    }
  });

  test('a listener connection that hangs without closing is found by the heartbeat and replaced', async (t) => {
    const target = new URL(db.url);
    const proxy = new FreezingProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.listen();
    const busUrl = new URL(db.url);
    busUrl.port = String(proxy.port);
    const c = await startFaultApp({ url: db.url, busUrl: busUrl.toString(), sameDatabaseAs: a });
    const b = await startFaultApp({ url: db.url, sameDatabaseAs: a });
    try {
      await setActive(b, true);
      await until(async () => (await flagActive(c)) === true, 2_000, 'C sees the flag on');
      // The direct URL carries C's listener and C's change-counter connection.
      assert.equal(proxy.freeze(), 2, "the proxy carries C's listener and counter connection");
      const frozenAt = Date.now();
      await until(() => c.app.changeBus.stats.lost === 1, 3_000, 'the heartbeat notices');
      const noticedMs = Date.now() - frozenAt;
      await until(() => c.app.changeBus.listening, 3_000, 'C listens again');
      await setActive(b, false);
      const seenIn = await until(async () => (await flagActive(c)) === false, 2_000, "B's change reaches C's cache");
      t.diagnostic(`hung listener noticed in ${noticedMs} ms (heartbeat 200 ms, timeout 400 ms); B's change seen ${seenIn} ms after it`);
    } finally {
      await b.close();
      await c.close();
      await proxy.close();
    }
  });
});
