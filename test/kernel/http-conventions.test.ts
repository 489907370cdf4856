import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey } from '../accounts/support.ts';

describe('conventions on the platform routes', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    for (let i = 0; i < 4; i += 1) await createKey(t, { label: `key ${i}`, scopes: ['feature_flag:read'] });
  });
  after(() => t.close());

  test('next/previous are absolute URLs that keep the other query parameters', async () => {
    const first = await t.request({ method: 'GET', url: '/api/personal_api_keys/?limit=2&label=x&tag=a&tag=b' });
    assert.equal(first.statusCode, 200);
    const page1 = first.json();
    assert.equal(page1.count, 5);
    assert.equal(page1.results.length, 2);
    assert.equal(page1.previous, null);
    const next = new URL(page1.next);
    assert.equal(next.origin, 'http://localhost');
    assert.equal(next.pathname, '/api/personal_api_keys/');
    assert.equal(next.searchParams.get('limit'), '2');
    assert.equal(next.searchParams.get('offset'), '2');
    assert.equal(next.searchParams.get('label'), 'x');
    assert.deepEqual(next.searchParams.getAll('tag'), ['a', 'b']);

    const second = await t.request({ method: 'GET', url: next.pathname + next.search });
    const page2 = second.json();
    assert.equal(page2.results.length, 2);
    assert.notDeepEqual(page2.results.map((k: { id: string }) => k.id), page1.results.map((k: { id: string }) => k.id));
    const previous = new URL(page2.previous);
    assert.equal(previous.searchParams.get('offset'), null);
    assert.equal(previous.searchParams.get('label'), 'x');
    const third = new URL(page2.next);
    assert.equal(third.searchParams.get('offset'), '4');

    const last = await t.request({ method: 'GET', url: third.pathname + third.search });
    assert.equal(last.json().results.length, 1);
    assert.equal(last.json().next, null);
  });

  test('limit above 1000 is clamped to 1000', async () => {
    const res = await t.request({ method: 'GET', url: '/api/personal_api_keys/?limit=5000&offset=1' });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.results.length, 4);
    assert.equal(body.next, null);
    assert.equal(new URL(body.previous).searchParams.get('limit'), '1000');
  });

  for (const [query, attr] of [
    ['limit=-1', 'limit'],
    ['limit=0', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-3', 'offset'],
    ['offset=x', 'offset'],
  ] as const) {
    for (const url of ['/api/personal_api_keys/', '/api/projects/', '/api/organizations/']) {
      test(`${url}?${query} → 400 on ${attr}`, async () => {
        const res = await t.request({ method: 'GET', url: `${url}?${query}` });
        assert.equal(res.statusCode, 400);
        const body = res.json();
        assert.equal(body.type, 'validation_error');
        assert.equal(body.attr, attr);
        assert.equal(typeof body.detail, 'string');
      });
    }
  }

  test('every route answers with and without the trailing slash', async () => {
    for (const url of ['/api/projects', '/api/organizations', '/api/personal_api_keys', '/api/users/@me', '/api/projects/1', '/api/organizations/@current']) {
      for (const path of [url, `${url}/`]) {
        const res = await t.request({ method: 'GET', url: path });
        assert.equal(res.statusCode, 200, path);
      }
    }
  });

  test('a body that is not JSON → 400 parse_error', async () => {
    for (const url of ['/api/organizations/', '/api/projects/', '/api/personal_api_keys/']) {
      const res = await t.request({ method: 'POST', url, payload: '{"name": ', headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 400, url);
      const body = res.json();
      assert.equal(body.type, 'invalid_request');
      assert.equal(body.code, 'parse_error');
      assert.equal(body.attr, null);
    }
    const patch = await t.request({ method: 'PATCH', url: '/api/projects/1/', payload: 'nope', headers: { 'content-type': 'application/json' } });
    assert.equal(patch.statusCode, 400);
    assert.equal(patch.json().code, 'parse_error');
  });

  test('a body of another content type → 415', async () => {
    for (const [url, contentType] of [
      ['/api/organizations/', 'text/plain'],
      ['/api/projects/', 'text/plain'],
      ['/api/personal_api_keys/', 'application/x-www-form-urlencoded'],
    ]) {
      const res = await t.request({ method: 'POST', url, payload: 'name=x', headers: { 'content-type': contentType } });
      assert.equal(res.statusCode, 415, url);
      const body = res.json();
      assert.equal(body.type, 'invalid_request');
      assert.equal(body.code, 'unsupported_media_type');
      assert.equal(body.attr, null);
    }
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM organizations WHERE name = 'name=x'");
    assert.equal(rows[0].n, 0);
  });

  test('the OpenAPI document carries every platform route with its scope', async () => {
    const res = await t.request({ method: 'GET', url: '/api/schema/', key: null });
    assert.equal(res.statusCode, 200);
    const paths = res.json().paths;
    const expected: [string, string, string | null][] = [
      ['/api/users/@me', 'get', 'user:read'],
      ['/api/organizations', 'get', 'organization:read'],
      ['/api/organizations', 'post', 'organization:write'],
      ['/api/organizations/{organization_id}', 'get', 'organization:read'],
      ['/api/organizations/{organization_id}/projects', 'post', 'project:write'],
      ['/api/projects', 'get', 'project:read'],
      ['/api/projects', 'post', 'project:write'],
      ['/api/projects/{project_id}', 'get', 'project:read'],
      ['/api/projects/{project_id}', 'patch', 'project:write'],
      ['/api/projects/{project_id}', 'delete', 'project:write'],
      ['/api/personal_api_keys', 'get', 'user:read'],
      ['/api/personal_api_keys', 'post', '*'],
      ['/api/personal_api_keys/{id}', 'delete', '*'],
    ];
    for (const [path, method, scope] of expected) {
      const operation = paths[path]?.[method];
      assert.ok(operation, `${method} ${path}`);
      assert.equal(operation['x-required-scope'], scope, `${method} ${path}`);
      assert.deepEqual(operation.tags, ['platform']);
      assert.equal(typeof operation.summary, 'string');
    }
  });
});
