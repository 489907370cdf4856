import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFlag, flagsUrl } from './flag-client.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

async function keyWith(scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const response = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: scopes.join(' '), scopes, ...extra } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().value;
}

test('no key is 401 not_authenticated; an unknown key is 401 authentication_failed', async () => {
  const none = await t.request({ method: 'GET', url: flagsUrl(), key: null });
  assert.equal(none.statusCode, 401);
  assert.equal(none.json().code, 'not_authenticated');
  assert.equal(none.json().type, 'authentication_error');
  const unknown = await t.request({ method: 'GET', url: flagsUrl(), key: 'phx_not_a_real_key' });
  assert.equal(unknown.statusCode, 401);
  assert.equal(unknown.json().code, 'authentication_failed');
});

test('a read key may list but not create; the 403 names the missing scope', async () => {
  const read = await keyWith(['feature_flag:read']);
  assert.equal((await t.request({ method: 'GET', url: flagsUrl(), key: read })).statusCode, 200);
  const create = await t.request({ method: 'POST', url: flagsUrl(), key: read, payload: { key: 'nope' } });
  assert.equal(create.statusCode, 403);
  assert.deepEqual(create.json(), {
    type: 'authentication_error',
    code: 'permission_denied',
    detail: "API key missing required scope 'feature_flag:write'",
    attr: null,
  });
  const { rows } = await t.db.pool.query("SELECT 1 FROM feature_flags WHERE key = 'nope'");
  assert.equal(rows.length, 0);
});

test('a write key implies read; activity needs activity_log:read', async () => {
  const write = await keyWith(['feature_flag:write']);
  assert.equal((await t.request({ method: 'GET', url: flagsUrl(), key: write })).statusCode, 200);
  const activity = await t.request({ method: 'GET', url: `${flagsUrl()}activity/`, key: write });
  assert.equal(activity.statusCode, 403);
  assert.equal(activity.json().detail, "API key missing required scope 'activity_log:read'");
});

test('DELETE with a read key is 403, not 405 (scope comes before method rules)', async () => {
  const read = await keyWith(['feature_flag:read']);
  const flag = await createFlag(t, { key: 'guarded' });
  const response = await t.request({ method: 'DELETE', url: `${flagsUrl()}${flag.id}/`, key: read });
  assert.equal(response.statusCode, 403);
});

test('a key scoped to other projects is 403 on this one', async () => {
  const project = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Elsewhere' } });
  assert.equal(project.statusCode, 201, project.body);
  const scoped = await keyWith(['feature_flag:read'], { scoped_teams: [project.json().id] });
  const response = await t.request({ method: 'GET', url: flagsUrl(1), key: scoped });
  assert.equal(response.statusCode, 403);
  assert.equal(response.json().code, 'permission_denied');
  const own = await t.request({ method: 'GET', url: flagsUrl(project.json().id), key: scoped });
  assert.equal(own.statusCode, 200);
  const current = await t.request({ method: 'GET', url: '/api/projects/@current/feature_flags/', key: scoped });
  assert.equal(current.statusCode, 200);
});

test('an unknown project is 404', async () => {
  const response = await t.request({ method: 'GET', url: flagsUrl(4242) });
  assert.equal(response.statusCode, 404);
});
