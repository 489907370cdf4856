// The console's files as the service serves them: the app at / and at every client-side route,
// its security headers, long-lived caching of hashed assets and revalidation of index.html,
// pre-compressed bodies, and the API's JSON 404 kept for unknown /api/ paths and missing assets.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("the console");'.repeat(20);
const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

function fakeBuild(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bw-console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), INDEX);
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(dir, 'assets/app-Ab12Cd34.js'), SCRIPT);
  writeFileSync(path.join(dir, 'assets/app-Ab12Cd34.js.gz'), gzipSync(SCRIPT));
  writeFileSync(path.join(dir, '.build-stamp'), 'secret-ish\n');
  return dir;
}

function assertSecurityHeaders(headers: Record<string, unknown>): void {
  const csp = String(headers['content-security-policy']);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/, 'scripts only from the origin: no inline scripts, no eval');
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(headers['x-content-type-options'], 'nosniff');
  assert.equal(headers['referrer-policy'], 'same-origin');
}

describe('the console served at /', () => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    dir = fakeBuild();
    t = await startTestApp({ consoleDir: dir });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('/ and client-side routes answer index.html, revalidated, with the security headers, without a key', async () => {
    for (const url of ['/', '/feature_flags', '/feature_flags/12', '/settings/project?tab=keys', '/login/one-time', '/index.html']) {
      const res = await t.request({ method: 'GET', url, key: null });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.equal(res.body, INDEX, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
      assert.ok(res.headers.etag, `${url} carries an ETag to revalidate`);
      assertSecurityHeaders(res.headers);
    }
  });

  test('index.html revalidates to 304 with its ETag', async () => {
    const first = await t.request({ method: 'GET', url: '/flags-page', key: null });
    const again = await t.request({ method: 'GET', url: '/flags-page', key: null, headers: { 'if-none-match': String(first.headers.etag) } });
    assert.equal(again.statusCode, 304);
  });

  test('hashed assets are cached for a year and served pre-compressed when the client accepts it', async () => {
    const plain = await t.request({ method: 'GET', url: '/assets/app-Ab12Cd34.js', key: null });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, SCRIPT);
    assert.match(String(plain.headers['content-type']), /javascript/);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assertSecurityHeaders(plain.headers);

    const gzipped = await t.request({ method: 'GET', url: '/assets/app-Ab12Cd34.js', key: null, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gzipped.statusCode, 200);
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.equal(gzipped.rawPayload.length, gzipSync(SCRIPT).length);
  });

  test('a missing asset is a 404, not index.html (a stale page must not run HTML as a script)', async () => {
    for (const url of ['/assets/app-old.js', '/assets/', '/assets/.build-stamp', '/assets/app-Ab12Cd34.js.gz/x']) {
      const res = await t.request({ method: 'GET', url, key: null });
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /<div id="root">/, url);
    }
  });

  test('unknown /api/ paths keep their JSON 404; known ones still need a key', async () => {
    for (const url of ['/api', '/api/', '/api/nope', '/api/projects/1/nothing_here/']) {
      const res = await t.request({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(res.json(), NOT_FOUND, url);
      assert.equal(res.headers['content-security-policy'], undefined, `${url} is not a console page`);
    }
    const anonymous = await t.request({ method: 'GET', url: '/api/projects/1/feature_flags/', key: null });
    assert.equal(anonymous.statusCode, 401);
    const unknownWrite = await t.request({ method: 'POST', url: '/feature_flags/12', payload: {} });
    assert.equal(unknownWrite.statusCode, 404, 'only GET and HEAD reach the console');
  });

  test('hidden files of the build and path tricks are never served', async () => {
    for (const url of ['/.build-stamp', '/%2e%2e/package.json', '/..%2fpackage.json', '/assets/%2e%2e/%2e%2e/package.json']) {
      const res = await t.request({ method: 'GET', url, key: null });
      assert.doesNotMatch(res.body, /secret-ish|"name":\s*"bellwether"/, url);
    }
  });

  test('the console routes stay out of the OpenAPI document', async () => {
    const schema = (await t.request({ method: 'GET', url: '/api/schema/' })).json() as { paths: Record<string, unknown> };
    assert.equal(schema.paths['/*'], undefined);
    assert.equal(schema.paths['/{*}'], undefined);
  });
});

describe('the console before it is built', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ consoleDir: path.join(os.tmpdir(), 'bw-console-never-built') });
  });
  after(() => t.close());

  test('/ says how to build it, and the API keeps working', async () => {
    const res = await t.request({ method: 'GET', url: '/', key: null });
    assert.equal(res.statusCode, 503);
    assert.match(res.body, /npm run build:console/);
    assert.equal((await t.request({ method: 'GET', url: '/api/projects/@current/feature_flags/' })).statusCode, 200);
  });
});
