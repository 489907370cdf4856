import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});

after(async () => {
  await t.close();
});

test('a change subscriber that throws after commit does not turn the committed write into a 500', async () => {
  let calls = 0;
  t.app.changeBus.subscribe(() => {
    calls++;
    throw new Error('a broken cache');
  });
  const created = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: { key: 'survives-effects' } });
  assert.equal(created.statusCode, 201, created.body);
  assert.ok(calls >= 1);
  // The write is committed and this process's flag cache took it at once.
  const listed = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/?search=survives-effects` });
  assert.equal(listed.json().count, 1);
  const stored = await t.db.pool.query('SELECT 1 FROM feature_flags WHERE key = $1', ['survives-effects']);
  assert.equal(stored.rowCount, 1);
});

test('a refused write (a dependency on a flag that does not exist) leaves no flag in the database nor in the cache', async () => {
  const refused = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/feature_flags/`,
    payload: { key: 'never-written', filters: { groups: [{ properties: [{ key: '999999', type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] } },
  });
  assert.equal(refused.statusCode, 400, refused.body);
  const listed = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/?search=never-written` });
  assert.equal(listed.json().count, 0);
});

test('a real deadlock in a write that is not retried answers 503 with Retry-After, and nothing of it is stored', async () => {
  const created = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/cohorts/`, payload: { name: 'Static', is_static: true } });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().id as number;
  const other = await t.db.pool.connect();
  try {
    // This transaction holds the cohort's row, then asks for the project's cohort lock that the
    // request holds while it waits for the row: a cycle, and the request waited first.
    await other.query('BEGIN');
    await other.query('SELECT 1 FROM cohorts WHERE id = $1 FOR UPDATE', [id]);
    const patch = t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/cohorts/${id}/`, payload: { name: 'Renamed' } });
    const deadline = Date.now() + 5000;
    for (;;) {
      const { rows } = await t.db.pool.query<{ waiting: number }>(
        // This database only: other test files (and their lock waits) share the server.
        "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (rows[0].waiting > 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lock = other.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [727_010, t.projectId]);
    const answer = await patch;
    await lock;
    await other.query('COMMIT');
    assert.equal(answer.statusCode, 503, answer.body);
    assert.equal(answer.json().code, 'database_unavailable');
    assert.ok(Number(answer.headers['retry-after']) > 0);
  } finally {
    await other.query('ROLLBACK').catch(() => {});
    other.release();
  }
  const stored = await t.db.pool.query<{ name: string }>('SELECT name FROM cohorts WHERE id = $1', [id]);
  assert.equal(stored.rows[0].name, 'Static');
});
