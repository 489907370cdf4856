// The public surface (src/public/): one token check, one wording per error, CORS and 405 for every
// endpoint SDKs and browsers call with a project token — ingestion, flag evaluation, OFREP and the
// survey feed — each read from the places its SDKs put the token.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let token: string;

before(async () => {
  t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
});
after(() => t.close());

const MISSING = {
  type: 'authentication_error',
  code: 'not_authenticated',
  detail: 'API key not provided. You can find your project API key in PostHog project settings.',
  attr: null,
};
const UNKNOWN = {
  type: 'authentication_error',
  code: 'authentication_failed',
  detail: 'Project API key invalid. You can find your project API key in PostHog project settings.',
  attr: null,
};

const send = (options: InjectOptions) => t.app.inject(options);
const event = (properties: Record<string, unknown> = {}) => ({ event: 'seen', distinct_id: 'u1', properties });

/** One request per public path, with the token (or none) where that path reads it first. */
interface PublicPath {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  request(token: string | null): InjectOptions;
  ok: number;
}

const json = (url: string, payload: unknown, headers: Record<string, string> = {}): InjectOptions => ({
  method: 'POST',
  url,
  payload: JSON.stringify(payload),
  headers: { 'content-type': 'application/json', ...headers },
});

const PATHS: PublicPath[] = [
  {
    name: 'ingestion',
    method: 'POST',
    url: '/batch/',
    request: (tok) => json('/batch/', { ...(tok === null ? {} : { api_key: tok }), batch: [event()] }),
    ok: 200,
  },
  {
    name: 'flag evaluation',
    method: 'POST',
    url: '/flags/',
    request: (tok) => json('/flags/?v=2', { ...(tok === null ? {} : { token: tok }), distinct_id: 'u1' }),
    ok: 200,
  },
  {
    name: 'OFREP',
    method: 'POST',
    url: '/ofrep/v1/evaluate/flags',
    request: (tok) => json('/ofrep/v1/evaluate/flags', { context: { targetingKey: 'u1' } }, tok === null ? {} : { authorization: `Bearer ${tok}` }),
    ok: 200,
  },
  {
    name: 'survey feed',
    method: 'GET',
    url: '/api/surveys/',
    request: (tok) => ({ method: 'GET', url: tok === null ? '/api/surveys/' : `/api/surveys/?token=${encodeURIComponent(tok)}` }),
    ok: 200,
  },
];

function assertRefused(res: LightMyRequestResponse, expected: typeof MISSING, where: string): void {
  assert.equal(res.statusCode, 401, `${where}: ${res.body}`);
  assert.deepEqual(res.json(), expected, where);
}

describe('the project token', () => {
  test('missing: the same 401 and wording on every public path', async () => {
    for (const path of PATHS) assertRefused(await send(path.request(null)), MISSING, path.name);
  });

  test('unknown (or a personal key, or too long): the same 401 and wording on every public path', async () => {
    for (const path of PATHS) {
      for (const wrong of ['phc_not_a_project', t.key, 'x'.repeat(5000)]) {
        assertRefused(await send(path.request(wrong)), UNKNOWN, `${path.name} with ${wrong.slice(0, 12)}`);
      }
    }
  });

  test('known: each path answers', async () => {
    for (const path of PATHS) {
      const res = await send(path.request(token));
      assert.equal(res.statusCode, path.ok, `${path.name}: ${res.body}`);
    }
  });

  test('ingestion reads the body (token or api_key), the query (token or api_key), then the first event', async () => {
    const carriers: [string, InjectOptions][] = [
      ['body token', json('/batch/', { token, batch: [event()] })],
      ['body api_key', json('/capture/', { api_key: token, ...event() })],
      ['query token', json(`/e/?token=${token}`, [event()])],
      ['query api_key', json(`/e/?api_key=${token}`, [event()])],
      ['first event properties.token', json('/e/', [event({ token }), event()])],
      ['first event of a batch, its own api_key', json('/batch/', { batch: [{ ...event(), api_key: token }] })],
    ];
    for (const [name, request] of carriers) {
      const res = await send(request);
      assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
      assert.deepEqual(res.json(), { status: 1 });
    }
    // The body's token wins over the query's.
    assertRefused(await send(json(`/batch/?token=${token}`, { api_key: 'phc_wrong', batch: [event()] })), UNKNOWN, 'body first');
  });

  test('flag evaluation reads the body, then the query; OFREP the Authorization header, then the query', async () => {
    for (const request of [
      json('/flags/?v=2', { api_key: token, distinct_id: 'u1' }),
      json(`/flags/?v=2&token=${token}`, { distinct_id: 'u1' }),
      json(`/decide/?v=4&api_key=${token}`, { distinct_id: 'u1' }),
      json(`/ofrep/v1/evaluate/flags?token=${token}`, { context: { targetingKey: 'u1' } }),
    ]) {
      const res = await send(request);
      assert.equal(res.statusCode, 200, `${request.url}: ${res.body}`);
    }
  });

  test('the survey feed reads ?token= or ?api_key=, white space around the token dropped', async () => {
    for (const url of [`/api/surveys/?api_key=${token}`, `/api/surveys/?token=%20${token}%20`]) {
      assert.equal((await send({ method: 'GET', url })).statusCode, 200, url);
    }
  });

  test('a path does not read a place its SDKs never use', async () => {
    const bearer = { authorization: `Bearer ${token}` };
    assertRefused(await send({ method: 'GET', url: '/api/surveys/', headers: bearer }), MISSING, 'feed with a header');
    assertRefused(await send(json('/flags/?v=2', { distinct_id: 'u1' }, bearer)), MISSING, 'flags with a header');
    assertRefused(await send(json('/ofrep/v1/evaluate/flags', { token, context: { targetingKey: 'u1' } })), MISSING, 'OFREP with a body token');
    assertRefused(await send(json('/flags/?v=2', { distinct_id: 'u1', properties: { token } })), MISSING, 'flags with an event token');
    assertRefused(await send(json('/batch/', { batch: [event()] }, bearer)), MISSING, 'ingestion with a header');
  });

  test('an unreadable body is a 400 before the token is looked for; an empty flags body reads as {}', async () => {
    const empty = await send({ method: 'POST', url: '/batch/', payload: '', headers: { 'content-type': 'application/json' } });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().code, 'parse_error');
    const broken = await send({ method: 'POST', url: '/flags/', payload: '{"token": ', headers: { 'content-type': 'application/json' } });
    assert.equal(broken.statusCode, 400);
    const emptyFlags = await send({ method: 'POST', url: `/flags/?token=${token}`, payload: '', headers: { 'content-type': 'application/json' } });
    assert.equal(emptyFlags.statusCode, 400);
    assert.equal(emptyFlags.json().attr, 'distinct_id');
    assertRefused(await send({ method: 'POST', url: '/flags/', payload: ' ', headers: { 'content-type': 'application/json' } }), MISSING, 'blank flags body');
  });
});

describe('CORS and other methods', () => {
  const ORIGIN = 'https://shop.example';

  test('every token path answers the preflight for any origin, with its one method', async () => {
    for (const path of PATHS) {
      const res = await send({
        method: 'OPTIONS',
        url: path.url,
        headers: { origin: ORIGIN, 'access-control-request-method': path.method, 'access-control-request-headers': 'content-type' },
      });
      assert.equal(res.statusCode, 204, path.name);
      assert.equal(res.headers['access-control-allow-origin'], ORIGIN, path.name);
      assert.equal(res.headers['access-control-allow-credentials'], 'true', path.name);
      assert.equal(res.headers['access-control-allow-methods'], `${path.method}, OPTIONS`, path.name);
      assert.equal(res.headers['access-control-allow-headers'], 'content-type', path.name);
      assert.equal(res.headers['access-control-max-age'], '86400', path.name);
    }
    const noHeadersAsked = await send({ method: 'OPTIONS', url: '/flags/', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    assert.equal(noHeadersAsked.headers['access-control-allow-headers'], 'Content-Type, Content-Encoding, Authorization, If-None-Match');
  });

  test('answers, refusals included, carry the CORS headers for the caller’s origin; none without an Origin', async () => {
    for (const path of PATHS) {
      for (const tok of [token, null]) {
        const request = path.request(tok);
        const res = await send({ ...request, headers: { ...(request.headers ?? {}), origin: ORIGIN } });
        assert.equal(res.headers['access-control-allow-origin'], ORIGIN, `${path.name} ${res.statusCode}`);
        assert.equal(res.headers['access-control-expose-headers'], 'ETag', path.name);
        assert.match(String(res.headers.vary), /Origin/, path.name);
      }
      assert.equal((await send(path.request(token))).headers['access-control-allow-origin'], undefined, path.name);
    }
    const remote = await send({ method: 'GET', url: `/array/${token}/config`, headers: { origin: ORIGIN } });
    assert.equal(remote.headers['access-control-allow-origin'], ORIGIN);
  });

  test('other methods answer 405 with Allow and the standard body, without any credential', async () => {
    const cases: [string, InjectOptions['method'], string][] = [
      ['/batch/', 'GET', 'POST, OPTIONS'],
      ['/e/', 'DELETE', 'POST, OPTIONS'],
      ['/flags/', 'PUT', 'POST, OPTIONS'],
      ['/decide/', 'GET', 'POST, OPTIONS'],
      ['/ofrep/v1/evaluate/flags/some-flag', 'GET', 'POST, OPTIONS'],
      ['/api/surveys/', 'POST', 'GET, HEAD, OPTIONS'],
      [`/array/${token}/config.js`, 'PATCH', 'GET, HEAD, OPTIONS'],
      ['/flags/definitions', 'POST', 'GET, HEAD, OPTIONS'],
      ['/api/feature_flag/local_evaluation', 'DELETE', 'GET, HEAD, OPTIONS'],
      [`/api/projects/${1}/feature_flags/local_evaluation`, 'POST', 'GET, HEAD, OPTIONS'],
    ];
    for (const [url, method, allow] of cases) {
      const res = await send({ method, url, headers: { origin: ORIGIN } });
      assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
      assert.equal(res.headers.allow, allow, `${method} ${url}`);
      assert.deepEqual(res.json(), { type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null });
    }
  });

  test('flag definitions (personal or secret key) are not open to browsers: no preflight, no CORS headers', async () => {
    const preflight = await send({ method: 'OPTIONS', url: '/flags/definitions', headers: { origin: ORIGIN, 'access-control-request-method': 'GET' } });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    const read = await send({ method: 'GET', url: '/flags/definitions', headers: { origin: ORIGIN, authorization: `Bearer ${t.key}` } });
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['access-control-allow-origin'], undefined);
  });
});
