import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

type Operation = { security?: Record<string, string[]>[]; 'x-required-scope'?: string; requestBody?: unknown; responses?: Record<string, unknown> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let doc: Document;
before(async () => {
  t = await startTestApp();
  const response = await t.request({ method: 'GET', url: '/api/schema/', key: null });
  assert.equal(response.statusCode, 200);
  doc = response.json();
});
after(async () => {
  await t.close();
});

const flagPath = '/api/projects/{project_id}/feature_flags/';

test('the document is public OpenAPI 3 and documents the flag routes with their scopes', () => {
  assert.match(doc.openapi, /^3\./);
  const expectations: [string, string, string][] = [
    [flagPath, 'get', 'feature_flag:read'],
    [flagPath, 'post', 'feature_flag:write'],
    [`${flagPath}{id}`, 'get', 'feature_flag:read'],
    [`${flagPath}{id}`, 'patch', 'feature_flag:write'],
    [`${flagPath}{id}`, 'delete', 'feature_flag:write'],
    [`${flagPath}{id}/activity`, 'get', 'activity_log:read'],
    [`${flagPath}activity`, 'get', 'activity_log:read'],
  ];
  for (const [path, method, scope] of expectations) {
    const operation = doc.paths[path]?.[method] ?? doc.paths[path.replace(/\/$/, '')]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
    assert.equal(operation['x-required-scope'], scope, `${method} ${path}`);
    assert.deepEqual(operation.security, [{ PersonalAPIKeyAuth: [scope] }, { SessionCookieAuth: [] }]);
  }
});

test('the create operation documents the writable fields from the validating schema', () => {
  const create = doc.paths[flagPath]?.post ?? doc.paths[flagPath.replace(/\/$/, '')]?.post;
  const text = JSON.stringify(create?.requestBody);
  for (const field of ['key', 'filters', 'evaluation_tags', '_should_create_usage_dashboard', 'bucketing_identifier']) {
    assert.ok(text.includes(`"${field}"`), field);
  }
});

test('every authenticated operation states a security requirement; health and schema routes are hidden', () => {
  for (const [path, operations] of Object.entries(doc.paths)) {
    assert.ok(!path.startsWith('/_health') && !path.startsWith('/api/schema'), path);
    for (const [method, operation] of Object.entries(operations)) {
      const security = operation.security;
      assert.ok(Array.isArray(security) && security.length >= 1, `${method} ${path}`);
      // The session is only ever the alternative to a key, never the one way in.
      if (security.some((s) => 'SessionCookieAuth' in s)) assert.ok('PersonalAPIKeyAuth' in security[0], `${method} ${path}`);
    }
  }
});

test('Swagger UI is served', async () => {
  const response = await t.request({ method: 'GET', url: '/api/schema/swagger-ui/', key: null });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /text\/html/);
});
