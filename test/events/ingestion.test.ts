import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { CHANGES_CHANNEL } from '../../src/kernel/changes/bus.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/eventually.ts';

interface StoredEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: Date;
}

let t: TestApp;
let token: string;

before(async () => {
  t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
});
after(() => t.close());
beforeEach(async () => {
  await t.db.pool.query('DELETE FROM events');
});

async function stored(): Promise<StoredEvent[]> {
  const { rows } = await t.db.pool.query<StoredEvent>(
    'SELECT uuid::text AS uuid, event, distinct_id, properties, timestamp FROM events WHERE project_id = $1 ORDER BY event, timestamp',
    [t.projectId],
  );
  return rows;
}

async function count(): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
  return rows[0].n;
}

function post(url: string, payload: string | Buffer, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'POST', url, payload, headers });
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  post(url, JSON.stringify(body), { 'content-type': 'application/json', ...headers });

const ev = (name: string, extra: Record<string, unknown> = {}) => ({
  event: name,
  distinct_id: 'user-1',
  properties: { plan: 'pro' },
  ...extra,
});

function assertAccepted(res: LightMyRequestResponse): void {
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json(), { status: 1 });
}

function assertError(res: LightMyRequestResponse, status: number, expected: { type?: string; code?: string; attr?: string | null }): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['attr', 'code', 'detail', 'type']);
  assert.equal(typeof body.detail, 'string');
  assert.ok(body.detail.length > 0);
  if (expected.type !== undefined) assert.equal(body.type, expected.type);
  if (expected.code !== undefined) assert.equal(body.code, expected.code);
  if (expected.attr !== undefined) assert.equal(body.attr, expected.attr);
}

describe('body formats', () => {
  test('posthog-node: {api_key, batch, sent_at} gzipped with Content-Encoding on /batch/', async () => {
    const uuid = randomUUID();
    const body = { api_key: token, batch: [ev('a', { uuid, properties: { $lib: 'posthog-node', n: 1 } }), ev('b')], sent_at: new Date().toISOString() };
    const res = await post('/batch/', gzipSync(JSON.stringify(body)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assertAccepted(res);
    const rows = await stored();
    assert.deepEqual(rows.map((r) => r.event), ['a', 'b']);
    assert.equal(rows[0].uuid, uuid);
    assert.deepEqual(rows[0].properties, { $lib: 'posthog-node', n: 1 });
    assert.equal(rows[0].distinct_id, 'user-1');
  });

  test('plain JSON batch, without the trailing slash', async () => {
    assertAccepted(await postJson('/batch', { api_key: token, batch: [ev('plain')] }));
    assert.deepEqual((await stored()).map((r) => r.event), ['plain']);
  });

  test('a single event object with its token in the body, on /capture/, /track/ and /engage/', async () => {
    assertAccepted(await postJson('/capture/', { token, ...ev('one') }));
    assertAccepted(await postJson('/track', { api_key: token, ...ev('two') }));
    assertAccepted(await postJson('/engage/', { api_key: token, ...ev('three') }));
    assert.deepEqual((await stored()).map((r) => r.event), ['one', 'three', 'two']);
  });

  test('posthog-js: a JSON array with properties.token on /e/; the token is not stored', async () => {
    const events = [ev('js1', { properties: { token, $lib: 'web' } }), ev('js2', { properties: { token } })];
    assertAccepted(await postJson('/e/', events));
    const rows = await stored();
    assert.deepEqual(rows.map((r) => r.event), ['js1', 'js2']);
    assert.deepEqual(rows[0].properties, { $lib: 'web' });
    assert.deepEqual(rows[1].properties, {});
  });

  test('posthog-js: ?compression=gzip-js, gzip body as text/plain, on /i/v0/e/', async () => {
    const body = { api_key: token, batch: [ev('gz', { properties: { token } })], sent_at: new Date().toISOString() };
    const res = await post(`/i/v0/e/?compression=gzip-js&ver=1.449.2&_=${Date.now()}`, gzipSync(JSON.stringify(body)), { 'content-type': 'text/plain' });
    assertAccepted(res);
    assert.deepEqual((await stored()).map((r) => r.event), ['gz']);
  });

  test('?compression=base64 with a base64 body', async () => {
    const body = Buffer.from(JSON.stringify([ev('b64', { properties: { token, word: 'héllo ✓' } })])).toString('base64');
    assertAccepted(await post('/e/?compression=base64', body, { 'content-type': 'text/plain' }));
    const rows = await stored();
    assert.equal(rows[0].event, 'b64');
    assert.equal(rows[0].properties.word, 'héllo ✓');
  });

  test('form-encoded data=<JSON>', async () => {
    const data = JSON.stringify(ev('form-json', { properties: { token, q: 'a+b & c' } }));
    assertAccepted(await post('/e/', `data=${encodeURIComponent(data)}`, { 'content-type': 'application/x-www-form-urlencoded' }));
    const rows = await stored();
    assert.equal(rows[0].event, 'form-json');
    assert.equal(rows[0].properties.q, 'a+b & c');
  });

  test('form-encoded data=<base64> with compression=base64 (posthog-js sendBeacon), and unescaped + in base64', async () => {
    const base64 = Buffer.from(JSON.stringify([ev('form-b64', { properties: { token, s: '>>>???' } })])).toString('base64');
    assert.ok(base64.includes('+'), base64);
    assertAccepted(await post('/e/?compression=base64', `data=${encodeURIComponent(base64)}`, { 'content-type': 'application/x-www-form-urlencoded' }));
    // A client that forgot to URL-encode: `+` arrives as a space.
    assertAccepted(await post('/e/', `data=${base64}&compression=base64`, { 'content-type': 'application/x-www-form-urlencoded' }));
    const rows = await stored();
    assert.equal(rows.length, 2);
    assert.ok(rows.every((r) => r.event === 'form-b64' && r.properties.s === '>>>???'));
  });

  test('text/plain holding JSON (sendBeacon), and a body with no content type at all', async () => {
    assertAccepted(await post('/e/', JSON.stringify({ api_key: token, batch: [ev('beacon')] }), { 'content-type': 'text/plain;charset=UTF-8' }));
    const res = await t.app.inject({ method: 'POST', url: '/batch/', payload: Buffer.from(JSON.stringify({ api_key: token, batch: [ev('bare')] })) });
    assertAccepted(res);
    assert.deepEqual((await stored()).map((r) => r.event), ['bare', 'beacon']);
  });

  test('the token may come from the query string', async () => {
    assertAccepted(await postJson(`/e/?token=${token}`, [ev('query-token')]));
    assert.equal(await count(), 1);
  });

  test('browsers get CORS answers', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/e/',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://shop.example');
    assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
    const res = await postJson('/e/', [ev('cors', { properties: { token } })], { origin: 'https://shop.example' });
    assertAccepted(res);
    assert.equal(res.headers['access-control-allow-origin'], 'https://shop.example');
  });

  test('other methods answer 405 with Allow, not a personal-key 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/batch/' });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'POST, OPTIONS');
  });

  test('the rest of the API still refuses text/plain bodies with 415', async () => {
    const res = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: '{}', headers: { 'content-type': 'text/plain' } });
    assert.equal(res.statusCode, 415);
  });
});

describe('normalisation', () => {
  test('a missing uuid is assigned (time-ordered v7); a sent one is kept, lower-cased', async () => {
    const upper = randomUUID().toUpperCase();
    assertAccepted(await postJson('/batch/', { api_key: token, batch: [ev('no-uuid'), ev('upper', { uuid: upper })] }));
    const rows = await stored();
    assert.match(rows[0].uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(rows[1].uuid, upper.toLowerCase());
  });

  test('distinct_id from $distinct_id or properties; numbers are stringified', async () => {
    const batch = [
      { event: 'n', distinct_id: 42 },
      { event: 'd', $distinct_id: 'dollar' },
      { event: 'p', properties: { distinct_id: 'in-props' } },
      { event: 'q', properties: { $distinct_id: 'in-props-$' } },
    ];
    assertAccepted(await postJson('/batch/', { api_key: token, batch }));
    const ids = Object.fromEntries((await stored()).map((r) => [r.event, r.distinct_id]));
    assert.deepEqual(ids, { n: '42', d: 'dollar', p: 'in-props', q: 'in-props-$' });
  });

  test('top-level $set/$set_once/$unset move into properties; properties win on a clash', async () => {
    const event = {
      event: '$identify',
      distinct_id: 'u',
      $set: { email: 'top@x', name: 'Top' },
      $set_once: { first: 'once' },
      $unset: ['old'],
      properties: { $set: { email: 'props@x' } },
    };
    assertAccepted(await postJson('/batch/', { api_key: token, batch: [event] }));
    const [row] = await stored();
    assert.deepEqual(row.properties, { $set: { email: 'props@x', name: 'Top' }, $set_once: { first: 'once' }, $unset: ['old'] });
  });

  test('NUL characters and lone surrogates are stored as U+FFFD instead of failing the batch', async () => {
    const body = `{"api_key":"${token}","batch":[{"event":"nul\\u0000","distinct_id":"u","properties":{"k\\u0000":"a\\u0000b","s":"x\\ud800y","ok":"\\ud83d\\ude00"}}]}`;
    assertAccepted(await post('/batch/', body, { 'content-type': 'application/json' }));
    const [row] = await stored();
    assert.equal(row.event, 'nul\ufffd');
    assert.deepEqual(row.properties, { 'k\ufffd': 'a\ufffdb', s: 'x\ufffdy', ok: '😀' });
  });

  test('historical_migration is accepted', async () => {
    assertAccepted(await postJson('/batch/', { api_key: token, historical_migration: true, batch: [ev('hist')] }));
    assert.equal(await count(), 1);
  });
});

describe('timestamps', () => {
  const closeTo = (actual: Date, expected: number, tolerance = 5_000) =>
    assert.ok(Math.abs(actual.getTime() - expected) <= tolerance, `${actual.toISOString()} vs ${new Date(expected).toISOString()}`);

  test('clock skew: timestamp = now − (sent_at − timestamp)', async () => {
    // The sender's clock is three years behind; the event happened 10 s before sending.
    const batch = [ev('skew', { timestamp: '2021-03-01T12:00:00.000Z' })];
    const before = Date.now();
    assertAccepted(await postJson('/batch/', { api_key: token, sent_at: '2021-03-01T12:00:10.000Z', batch }));
    const [row] = await stored();
    closeTo(row.timestamp, before - 10_000);
  });

  test('a per-event sent_at wins over the body one; query sent_at (ms) is used by posthog-js', async () => {
    const before = Date.now();
    const batch = [ev('per-event', { timestamp: '2021-03-01T12:00:00Z', sent_at: '2021-03-01T12:01:00Z' })];
    assertAccepted(await postJson('/batch/', { api_key: token, sent_at: '2021-03-01T12:00:00Z', batch }));
    const sentAt = Date.UTC(2022, 0, 1, 0, 0, 30);
    assertAccepted(await postJson(`/e/?sent_at=${sentAt}`, [ev('query-sent', { properties: { token }, timestamp: '2022-01-01T00:00:00Z' })]));
    const rows = await stored();
    closeTo(rows.find((r) => r.event === 'per-event')!.timestamp, before - 60_000);
    closeTo(rows.find((r) => r.event === 'query-sent')!.timestamp, before - 30_000);
  });

  test('offset (ms ago) without sent_at; a bare timestamp is kept; none means now', async () => {
    const before = Date.now();
    const batch = [
      ev('offset', { offset: 60_000 }),
      ev('bare', { timestamp: '2023-06-01T10:00:00.123+02:00' }),
      ev('no-offset-is-utc', { timestamp: '2023-06-01T10:00:00' }),
      ev('epoch-ms', { timestamp: 1_700_000_000_000 }),
      ev('now'),
    ];
    assertAccepted(await postJson('/batch/', { api_key: token, batch }));
    const byName = Object.fromEntries((await stored()).map((r) => [r.event, r.timestamp]));
    closeTo(byName.offset, before - 60_000);
    assert.equal(byName.bare.toISOString(), '2023-06-01T08:00:00.123Z');
    assert.equal(byName['no-offset-is-utc'].toISOString(), '2023-06-01T10:00:00.000Z');
    assert.equal(byName['epoch-ms'].toISOString(), new Date(1_700_000_000_000).toISOString());
    closeTo(byName.now, before);
  });

  test('$ignore_sent_at keeps the sent timestamp; a time more than 23 h ahead becomes now', async () => {
    const before = Date.now();
    const future = new Date(before + 3 * 24 * 3600_000).toISOString();
    const batch = [ev('ignore', { timestamp: '2020-01-01T00:00:00Z', properties: { $ignore_sent_at: true } }), ev('future', { timestamp: future })];
    assertAccepted(await postJson('/batch/', { api_key: token, sent_at: new Date().toISOString(), batch }));
    const byName = Object.fromEntries((await stored()).map((r) => [r.event, r.timestamp]));
    assert.equal(byName.ignore.toISOString(), '2020-01-01T00:00:00.000Z');
    closeTo(byName.future, before);
  });
});

describe('idempotency', () => {
  test('the same batch sent twice is stored once', async () => {
    const body = { api_key: token, batch: [ev('r1', { uuid: randomUUID() }), ev('r2', { uuid: randomUUID() })] };
    assertAccepted(await postJson('/batch/', body));
    assertAccepted(await postJson('/batch/', body));
    assert.equal(await count(), 2);
    // A later batch with one old and one new event stores only the new one.
    assertAccepted(await postJson('/batch/', { api_key: token, batch: [body.batch[0], ev('r3', { uuid: randomUUID() })] }));
    assert.deepEqual((await stored()).map((r) => r.event), ['r1', 'r2', 'r3']);
  });

  test('a uuid repeated within a batch: the first one wins', async () => {
    const uuid = randomUUID();
    assertAccepted(await postJson('/batch/', { api_key: token, batch: [ev('first', { uuid }), ev('second', { uuid })] }));
    const rows = await stored();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].event, 'first');
  });

  test('the same uuid in another project is another event', async () => {
    const { rows } = await t.db.pool.query<{ id: number; api_token: string }>(
      `INSERT INTO projects (organization_id, name, api_token, secret_token_hash, secret_token_mask)
       SELECT organization_id, 'other', 'phc_other_' || md5(random()::text), md5(random()::text), 'phs_...x' FROM projects WHERE id = $1
       RETURNING id, api_token`,
      [t.projectId],
    );
    const uuid = randomUUID();
    assertAccepted(await postJson('/batch/', { api_key: token, batch: [ev('p1', { uuid })] }));
    assertAccepted(await postJson('/batch/', { api_key: rows[0].api_token, batch: [ev('p2', { uuid })] }));
    const { rows: all } = await t.db.pool.query('SELECT project_id FROM events WHERE uuid = $1 ORDER BY project_id', [uuid]);
    assert.deepEqual(all.map((r) => r.project_id), [t.projectId, rows[0].id]);
  });
});

describe('refusals (nothing is stored)', () => {
  const validBatch = () => [ev('good')];

  test('no token → 401 not_authenticated', async () => {
    const res = await postJson('/batch/', { batch: validBatch() });
    assertError(res, 401, { type: 'authentication_error', code: 'not_authenticated', attr: null });
    assert.equal(res.json().detail, 'API key not provided. You can find your project API key in PostHog project settings.');
    assertError(await postJson('/e/', [ev('x', { properties: {} })]), 401, { code: 'not_authenticated' });
    assert.equal(await count(), 0);
  });

  test('unknown token → 401 authentication_failed (also a personal key or a long string)', async () => {
    assertError(await postJson('/batch/', { api_key: 'phc_not_a_real_token', batch: validBatch() }), 401, {
      type: 'authentication_error',
      code: 'authentication_failed',
    });
    assertError(await postJson('/batch/', { api_key: t.key, batch: validBatch() }), 401, { code: 'authentication_failed' });
    assertError(await postJson('/batch/', { api_key: 'x'.repeat(5000), batch: validBatch() }), 401, { code: 'authentication_failed' });
    assert.equal(await count(), 0);
  });

  test('broken gzip, not JSON, bad base64, empty body → 400 parse_error', async () => {
    const gz = gzipSync(JSON.stringify({ api_key: token, batch: validBatch() }));
    const cases: LightMyRequestResponse[] = [
      await post('/batch/', Buffer.from('definitely not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' }),
      await post('/e/?compression=gzip-js', gz.subarray(0, gz.length - 12), { 'content-type': 'text/plain' }),
      await post('/batch/', '{"api_key": "x", "batch": [', { 'content-type': 'application/json' }),
      await post('/e/?compression=base64', '%%%not base64%%%', { 'content-type': 'text/plain' }),
      await post('/e/', `data=${encodeURIComponent(Buffer.from('not json at all').toString('base64'))}`, { 'content-type': 'application/x-www-form-urlencoded' }),
      await post('/e/', 'foo=bar', { 'content-type': 'application/x-www-form-urlencoded' }),
      await post('/batch/', '', { 'content-type': 'application/json' }),
    ];
    for (const res of cases) assertError(res, 400, { type: 'invalid_request', code: 'parse_error', attr: null });
    assert.equal(await count(), 0);
  });

  const invalid: [string, unknown, string, string][] = [
    ['no event name', { distinct_id: 'u' }, 'batch__1__event', 'required'],
    ['event name not a string', { event: 7, distinct_id: 'u' }, 'batch__1__event', 'invalid_input'],
    ['blank event name', { event: ' ', distinct_id: 'u' }, 'batch__1__event', 'blank'],
    ['event name over 200 characters', { event: 'e'.repeat(201), distinct_id: 'u' }, 'batch__1__event', 'max_length'],
    ['no distinct_id', { event: 'e' }, 'batch__1__distinct_id', 'required'],
    ['empty distinct_id', { event: 'e', distinct_id: '' }, 'batch__1__distinct_id', 'blank'],
    ['distinct_id an object', { event: 'e', distinct_id: { a: 1 } }, 'batch__1__distinct_id', 'invalid_input'],
    ['properties not an object', { event: 'e', distinct_id: 'u', properties: [1] }, 'batch__1__properties', 'not_a_dict'],
    ['bad uuid', { event: 'e', distinct_id: 'u', uuid: 'not-a-uuid' }, 'batch__1__uuid', 'invalid_input'],
    ['unparseable timestamp', { event: 'e', distinct_id: 'u', timestamp: 'yesterday' }, 'batch__1__timestamp', 'invalid_input'],
    ['impossible date', { event: 'e', distinct_id: 'u', timestamp: '2024-02-30T00:00:00Z' }, 'batch__1__timestamp', 'invalid_input'],
    ['event not an object', 'just a string', 'batch__1', 'not_a_dict'],
    ['offset not a number', { event: 'e', distinct_id: 'u', offset: 'soon' }, 'batch__1__offset', 'invalid_input'],
  ];
  for (const [name, bad, attr, code] of invalid) {
    test(`${name} → 400 on ${attr}, and the valid event beside it is not stored`, async () => {
      const res = await postJson('/batch/', { api_key: token, batch: [ev('valid'), bad, ev('valid-too')] });
      assertError(res, 400, { type: 'validation_error', code, attr });
      assert.equal(await count(), 0);
    });
  }

  test('the 400 names the first bad event; attrs follow the body shape (array, single event)', async () => {
    const res = await postJson('/batch/', { api_key: token, batch: [ev('ok'), ev('ok'), { distinct_id: 'u' }, { distinct_id: 'u' }] });
    assertError(res, 400, { attr: 'batch__2__event' });
    assertError(await postJson(`/e/?token=${token}`, [ev('ok'), ev('ok'), ev('ok'), { event: 'x' }]), 400, { attr: '3__distinct_id' });
    assertError(await postJson('/capture/', { api_key: token, event: 'x', distinct_id: 'u', uuid: 5 }), 400, { attr: 'uuid' });
    assertError(await postJson('/batch/', { api_key: token, batch: {} }), 400, { attr: 'batch', code: 'not_a_list' });
    assertError(await postJson('/batch/', { api_key: token, batch: [] }), 400, { attr: 'batch', code: 'empty' });
    assertError(await postJson('/batch/', { api_key: token, sent_at: 'later', batch: [ev('x')] }), 400, { attr: 'sent_at' });
    assert.equal(await count(), 0);
  });

  test('a body over 20 MB → 413 request_too_large', async () => {
    const huge = JSON.stringify({ api_key: token, batch: [ev('big', { properties: { blob: 'x'.repeat(21 * 1024 * 1024) } })] });
    const res = await post('/batch/', huge, { 'content-type': 'application/json' });
    assertError(res, 413, { type: 'invalid_request', code: 'request_too_large' });
    assert.equal(await count(), 0);
  });

  test('a body between the app-wide 10 MB and the ingestion 20 MB limit is accepted', async () => {
    const body = JSON.stringify({ api_key: token, batch: [ev('roomy')] }) + ' '.repeat(15 * 1024 * 1024);
    assertAccepted(await post('/batch/', body, { 'content-type': 'application/json' }));
    assert.equal(await count(), 1);
  });

  test('a gzip bomb (tiny body, over 20 MB inflated) → 413', async () => {
    const bomb = gzipSync(Buffer.alloc(101 * 1024 * 1024, 0x20));
    assert.ok(bomb.length < 1024 * 1024);
    assertError(await post('/batch/', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' }), 413, { code: 'request_too_large' });
    assertError(await post('/e/?compression=gzip-js', bomb, { 'content-type': 'text/plain' }), 413, { code: 'request_too_large' });
    assert.equal(await count(), 0);
  });

  test('more than 10 000 events in one request → 413', async () => {
    const batch = Array.from({ length: 10_001 }, (_, i) => ({ event: 'e', distinct_id: String(i) }));
    assertError(await postJson('/batch/', { api_key: token, batch }), 413, { code: 'request_too_large' });
    assert.equal(await count(), 0);
  });

  test('properties nested deeper than the limit → 400, never a 500; brackets inside strings do not count', async () => {
    for (const depth of [150, 5_000, 200_000]) {
      const deep = '['.repeat(depth) + ']'.repeat(depth);
      const body = `{"api_key":"${token}","batch":[{"event":"deep","distinct_id":"u","properties":{"d":${deep}}}]}`;
      assertError(await post('/batch/', body, { 'content-type': 'application/json' }), 400, { type: 'validation_error', code: 'max_depth', attr: null });
    }
    assert.equal(await count(), 0);
    let nested: unknown = 'leaf';
    for (let i = 0; i < 90; i++) nested = { n: nested };
    const text = `[[[{"\\": "\"${'['.repeat(500)}"`;
    assertAccepted(await postJson('/batch/', { api_key: token, batch: [ev('ok-depth', { properties: { nested, text } })] }));
    const [row] = await stored();
    assert.deepEqual(row.properties, { nested, text });
  });

  test('a token whose project was deleted meanwhile (still cached) → 401, not a 500', async () => {
    const { rows } = await t.db.pool.query<{ id: number; api_token: string }>(
      `INSERT INTO projects (organization_id, name, api_token, secret_token_hash, secret_token_mask)
       SELECT organization_id, 'doomed', 'phc_doomed_' || md5(random()::text), md5(random()::text), 'phs_...y' FROM projects WHERE id = $1
       RETURNING id, api_token`,
      [t.projectId],
    );
    assertAccepted(await postJson('/batch/', { api_key: rows[0].api_token, batch: [ev('before-delete')] }));
    await t.db.pool.query('DELETE FROM projects WHERE id = $1', [rows[0].id]);
    assertError(await postJson('/batch/', { api_key: rows[0].api_token, batch: [ev('after-delete')] }), 401, { code: 'authentication_failed' });
    assertError(await postJson('/batch/', { api_key: rows[0].api_token, batch: [ev('after-delete')] }), 401, { code: 'authentication_failed' });
    assert.equal(await count(), 0);
  });

  test('an unsupported Content-Encoding → 415; lz64 → 400', async () => {
    assertError(await post('/batch/', '{}', { 'content-type': 'application/json', 'content-encoding': 'zstd' }), 415, { code: 'unsupported_media_type' });
    assertError(await post('/e/?compression=lz64', 'N4Ig', { 'content-type': 'text/plain' }), 400, { code: 'parse_error' });
  });
});

describe('large batches', () => {
  test('10 000 events in one request are stored (several INSERT chunks)', async () => {
    const batch = Array.from({ length: 10_000 }, (_, i) => ({ event: `bulk ${i % 7}`, distinct_id: `u${i % 50}`, properties: { i } }));
    const res = await post('/batch/', gzipSync(JSON.stringify({ api_key: token, batch })), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assertAccepted(res);
    assert.equal(await count(), 10_000);
    const { rows } = await t.db.pool.query<{ n: number }>("SELECT count(DISTINCT (properties->>'i'))::int AS n FROM events");
    assert.equal(rows[0].n, 10_000);
  });
});

describe('what other processes hear', () => {
  async function personIdsOf(distinctIds: string[]): Promise<number[]> {
    const { rows } = await t.db.pool.query<{ person_id: string }>(
      'SELECT person_id FROM person_distinct_ids WHERE project_id = $1 AND distinct_id = ANY($2::text[]) ORDER BY person_id',
      [t.projectId, distinctIds],
    );
    return rows.map((row) => Number(row.person_id));
  }

  test('a batch that changes stored persons sends one persons notice naming them, once it commits (one INSERT chunk or several)', async () => {
    const listener = new pg.Client({ connectionString: t.db.url });
    await listener.connect();
    const heard: unknown[] = [];
    listener.on('notification', (message) => {
      const change = (JSON.parse(message.payload ?? '{}') as { change?: { kind?: string } }).change;
      if (change?.kind === 'persons') heard.push(change);
    });
    try {
      await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
      const ids = ['heard-a', 'heard-b'];
      assertAccepted(await postJson('/batch/', { api_key: token, batch: ids.map((id) => ev('seen', { distinct_id: id })) }));
      const personIds = await personIdsOf(ids);
      assert.equal(personIds.length, 2);
      const expected = { kind: 'persons', projectId: t.projectId, ids: personIds };

      assertAccepted(await postJson('/batch/', { api_key: token, batch: [ev('plan', { distinct_id: 'heard-b', properties: { $set: { plan: 'pro' } } }), ev('plan', { distinct_id: 'heard-a', properties: { $set: { plan: 'pro' } } })] }));
      await eventually('the notice of the small batch', async () => heard.length === 1);
      assert.deepEqual({ ...(heard[0] as object), ids: [...(heard[0] as { ids: number[] }).ids].sort((a, b) => a - b) }, expected);

      const batch = Array.from({ length: 2500 }, (_, i) => ev('bulk', { distinct_id: ids[i % 2], properties: { $set: { n: i } } }));
      assertAccepted(await postJson('/batch/', { api_key: token, batch }));
      await eventually('the notice of the batch of three INSERT chunks', async () => heard.length === 2);
      assert.deepEqual({ ...(heard[1] as object), ids: [...(heard[1] as { ids: number[] }).ids].sort((a, b) => a - b) }, expected);
      assert.equal(await count(), 2 + 2 + 2500);
    } finally {
      await listener.end();
    }
  });
});

describe('OpenAPI', () => {
  test('the ingestion endpoints are documented under the ingestion tag', async () => {
    const res = await t.request({ method: 'GET', url: '/api/schema/', key: null });
    const doc = res.json() as { paths: Record<string, Record<string, { tags?: string[] }>> };
    for (const path of ['/batch', '/e', '/i/v0/e', '/capture']) {
      const operation = doc.paths[path]?.post ?? doc.paths[`${path}/`]?.post;
      assert.ok(operation, path);
      assert.deepEqual(operation.tags, ['ingestion']);
    }
  });
});
