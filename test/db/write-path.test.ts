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
