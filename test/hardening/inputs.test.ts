/**
 * Bad input gets a 4xx naming what is wrong, never a 500 (issue 12): text PostgreSQL cannot
 * store, nesting past the limit, any JSON type in an enum, unknown ids, impossible dates, and
 * ingestion bodies that expand past their limits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { databaseErrorToApiError } from '../../src/kernel/http/database-errors.ts';
import { MAX_BODY_DEPTH } from '../../src/kernel/http/json-depth.ts';
import { pythonStr } from '../../src/kernel/http/python-types.ts';
import { findUnstorableText, storableValue } from '../../src/kernel/http/storable-text.ts';
import { isStorableDateTime } from '../../src/kernel/time.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let token: string;
let flagId: number;
let surveyId: string;

const p = () => `/api/projects/${t.projectId}`;

/** Sends `text` as the raw JSON body (so escapes such as `\u0000` arrive as sent). */
function sendRaw(method: 'POST' | 'PATCH', url: string, text: string): Promise<LightMyRequestResponse> {
  return t.request({ method, url, payload: text, headers: { 'content-type': 'application/json' } });
}

function assert400(response: LightMyRequestResponse, code: string, attr: string | null, detail?: string): void {
  assert.equal(response.statusCode, 400, response.body);
  const body = response.json();
  assert.equal(body.type, 'validation_error', response.body);
  assert.equal(body.code, code, response.body);
  assert.equal(body.attr, attr, response.body);
  if (detail !== undefined) assert.equal(body.detail, detail);
}

const nested = (depth: number) => '['.repeat(depth - 1) + '1' + ']'.repeat(depth - 1);

before(async () => {
  t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  const flag = await t.request({ method: 'POST', url: `${p()}/feature_flags/`, payload: { key: 'base', filters: { groups: [{ rollout_percentage: 50 }] } } });
  assert.equal(flag.statusCode, 201, flag.body);
  flagId = flag.json().id;
  const survey = await t.request({ method: 'POST', url: `${p()}/surveys/`, payload: { name: 'base', type: 'popover', questions: [{ type: 'open', question: 'Why?' }] } });
  assert.equal(survey.statusCode, 201, survey.body);
  surveyId = survey.json().id;
});
after(() => t.close());

describe('NUL and lone surrogates in stored text', () => {
  const NUL = '\\u0000';
  const LONE = '\\ud800';
  const cases: [string, 'POST' | 'PATCH', () => string, string, string][] = [
    ['flag name', 'POST', () => `${p()}/feature_flags/`, `{"key":"n1","name":"a${NUL}b"}`, 'name'],
    ['flag filters', 'POST', () => `${p()}/feature_flags/`, `{"key":"n2","filters":{"groups":[{"properties":[{"key":"email","type":"person","value":"x${NUL}"}]}]}}`, 'filters__groups__0__properties__0__value'],
    ['flag tags', 'PATCH', () => `${p()}/feature_flags/${flagId}/`, `{"tags":["ok","t${NUL}"]}`, 'tags__1'],
    ['flag rollback_conditions', 'PATCH', () => `${p()}/feature_flags/${flagId}/`, `{"rollback_conditions":[{"a":"${LONE}"}]}`, 'rollback_conditions__0__a'],
    ['survey questions', 'PATCH', () => `${p()}/surveys/${surveyId}/`, `{"questions":[{"type":"open","question":"q${NUL}"}]}`, 'questions__0__question'],
    ['survey appearance', 'PATCH', () => `${p()}/surveys/${surveyId}/`, `{"appearance":{"backgroundColor":"${LONE}"}}`, 'appearance__backgroundColor'],
    ['cohort name', 'POST', () => `${p()}/cohorts/`, `{"name":"c${NUL}"}`, 'name'],
    ['project name', 'PATCH', () => `${p()}/`, `{"name":"p${NUL}"}`, 'name'],
    ['event definition', 'POST', () => `${p()}/event_definitions/`, `{"name":"e${LONE}"}`, 'name'],
    ['personal API key label', 'POST', () => '/api/personal_api_keys/', `{"label":"k${NUL}","scopes":["*"]}`, 'label'],
  ];
  for (const [what, method, url, body, attr] of cases) {
    test(`${what}: 400 naming ${attr}`, async () => {
      const response = await sendRaw(method, url(), body);
      const code = body.includes(NUL) ? 'null_characters_not_allowed' : 'surrogate_characters_not_allowed';
      assert400(response, code, attr);
    });
  }

  test('the messages are DRF’s; a key holding NUL names the object holding it', async () => {
    assert400(await sendRaw('POST', `${p()}/feature_flags/`, `{"key":"n3","name":"${NUL}"}`), 'null_characters_not_allowed', 'name', 'Null characters are not allowed.');
    assert400(await sendRaw('PATCH', `${p()}/surveys/${surveyId}/`, `{"name":"${LONE}"}`), 'surrogate_characters_not_allowed', 'name', 'Surrogate characters are not allowed: U+D800.');
    assert400(await sendRaw('PATCH', `${p()}/surveys/${surveyId}/`, `{"appearance":{"a${NUL}":1}}`), 'null_characters_not_allowed', 'appearance');
  });

  test('nothing is stored; paired surrogates (emoji) are fine', async () => {
    const { rows } = await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM feature_flags WHERE key IN ('n1', 'n2', 'n3')`);
    assert.equal(rows[0].n, 0);
    const ok = await sendRaw('PATCH', `${p()}/feature_flags/${flagId}/`, '{"name":"smile \\ud83d\\ude00"}');
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().name, 'smile 😀');
  });

  test('NUL in a query parameter: 400 naming it; tokens 400/401; search drops it', async () => {
    const refused: [string, string][] = [
      ['/api/surveys/?token=%00', 'token'],
      ['/flags/definitions?token=%00', 'token'],
      ['/api/feature_flag/local_evaluation?token=%00', 'token'],
      [`${p()}/persons/?distinct_id=%00`, 'distinct_id'],
      [`${p()}/feature_flags/?type=a%00`, 'type'],
    ];
    for (const [url, attr] of refused) assert400(await t.request({ method: 'GET', url }), 'null_characters_not_allowed', attr);
    for (const url of [`${p()}/surveys/?search=%00`, `${p()}/cohorts/?search=%00`, `${p()}/persons/?search=a%00`, `${p()}/event_definitions/?search=%00`]) {
      const response = await t.request({ method: 'GET', url });
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    }
    const path = await t.request({ method: 'GET', url: `${p()}/feature_flags/%00/` });
    assert.equal(path.statusCode, 404, path.body);
  });

  test('NUL in an SDK token or distinct id: 401, or evaluated as U+FFFD; never a 500', async () => {
    for (const url of ['/flags?v=2', '/decide?v=3', '/batch/']) {
      const body = url === '/batch/' ? `{"api_key":"${NUL}","batch":[{"event":"x","distinct_id":"y"}]}` : `{"token":"${NUL}","distinct_id":"y"}`;
      const response = await t.app.inject({ method: 'POST', url, payload: body, headers: { 'content-type': 'application/json' } });
      assert.equal(response.statusCode, 401, `${url}: ${response.body}`);
    }
    const flags = await t.app.inject({ method: 'POST', url: '/flags?v=2', payload: `{"token":"${token}","distinct_id":"a${NUL}${LONE}"}`, headers: { 'content-type': 'application/json' } });
    assert.equal(flags.statusCode, 200, flags.body);
  });

  test('findUnstorableText and storableValue', () => {
    assert.deepEqual(findUnstorableText({ a: [1, { b: 'x\u0000' }] }), { path: ['a', 1, 'b'], problem: { kind: 'nul' } });
    assert.deepEqual(findUnstorableText(['\udc00']), { path: [0], problem: { kind: 'surrogate', codePoint: 0xdc00 } });
    assert.equal(findUnstorableText({ ok: '😀', n: 1, z: null }), null);
    assert.deepEqual(storableValue({ 'k\u0000': ['\ud800x', '😀'] }), { 'k\ufffd': ['\ufffdx', '😀'] });
  });
});

describe('nesting depth', () => {
  test(`more than ${MAX_BODY_DEPTH} levels: 400 max_depth on every JSON body, before anything recursive runs`, async () => {
    const deep = `{"rollback_conditions":${nested(10_000)}}`;
    for (const [method, url] of [
      ['PATCH', `${p()}/feature_flags/${flagId}/`],
      ['POST', `${p()}/feature_flags/`],
      ['PATCH', `${p()}/surveys/${surveyId}/`],
      ['POST', `${p()}/cohorts/`],
      ['POST', `${p()}/feature_flags/bulk_keys/`],
      ['POST', '/api/login/'],
    ] as const) {
      assert400(await sendRaw(method, url, deep), 'max_depth', null);
    }
    // The body object is a level itself: these bodies nest MAX + 1 and MAX levels.
    assert400(await sendRaw('PATCH', `${p()}/feature_flags/${flagId}/`, `{"rollback_conditions":${nested(MAX_BODY_DEPTH + 1)}}`), 'max_depth', null);
    // Exactly at the limit the body is read (and judged by the route's own rules).
    const atLimit = await sendRaw('PATCH', `${p()}/feature_flags/${flagId}/`, `{"rollback_conditions":${nested(MAX_BODY_DEPTH)}}`);
    assert.notEqual(atLimit.json().code, 'max_depth', atLimit.body);
    assert.ok(atLimit.statusCode < 500, atLimit.body);
  });

  test('brackets inside strings do not count', async () => {
    const name = '['.repeat(500);
    const response = await t.request({ method: 'PATCH', url: `${p()}/feature_flags/${flagId}/`, payload: { name } });
    assert.equal(response.statusCode, 200, response.body);
  });

  test('ingestion keeps its own, larger limit for event properties', async () => {
    const body = JSON.stringify({ api_key: token, batch: [{ event: 'deep', distinct_id: 'd', properties: { v: JSON.parse(nested(80)) } }] });
    const ok = await t.app.inject({ method: 'POST', url: '/batch/', payload: body, headers: { 'content-type': 'application/json' } });
    assert.equal(ok.statusCode, 200, ok.body);
    const tooDeep = JSON.stringify({ api_key: token, batch: [{ event: 'deep', distinct_id: 'd', properties: { v: JSON.parse(nested(200)) } }] });
    assert400(await t.app.inject({ method: 'POST', url: '/batch/', payload: tooDeep, headers: { 'content-type': 'application/json' } }), 'max_depth', null);
  });
});

describe('enum fields take any JSON type', () => {
  const values: [unknown, string][] = [
    [{ toString: 'x' }, "{'toString': 'x'}"],
    [['a', 1], "['a', 1]"],
    [7, '7'],
    [true, 'True'],
    ['nope', 'nope'],
  ];
  const fields: [string, () => string][] = [
    ['creation_context', () => `${p()}/feature_flags/${flagId}/`],
    ['type', () => `${p()}/surveys/${surveyId}/`],
    ['response_sampling_interval_type', () => `${p()}/surveys/${surveyId}/`],
  ];
  for (const [field, url] of fields) {
    test(`${field}: PostHog's message for objects, lists, numbers, booleans`, async () => {
      for (const [value, shown] of values) {
        const response = await t.request({ method: 'PATCH', url: url(), payload: { [field]: value } });
        assert400(response, 'invalid_choice', field, `"${shown}" is not a valid choice.`);
      }
    });
  }

  test('pythonStr quotes like Python and stays short', () => {
    assert.equal(pythonStr({ a: [null, false, 'x'] }), "{'a': [None, False, 'x']}");
    assert.equal(pythonStr({ toString: 'x', valueOf: 1 }), "{'toString': 'x', 'valueOf': 1}");
    assert.ok(pythonStr(Array.from({ length: 10_000 }, (_, i) => i)).length <= 101);
  });
});

describe('values that are objects with a toString key are data, not code', () => {
  test('flags with string, semver and regex operators evaluate such a person property; cohorts take it', async () => {
    const hostile = { toString: 'x', valueOf: 'y' };
    const batch = { api_key: token, batch: [{ event: 'e', distinct_id: 'obj-user', properties: { $set: { email: hostile, version: [hostile], plan: hostile } } }] };
    assert.equal((await t.app.inject({ method: 'POST', url: '/batch/', payload: batch })).statusCode, 200);
    const conditions = [
      { key: 'email', type: 'person', value: 'x', operator: 'icontains' },
      { key: 'version', type: 'person', value: '1.2.3', operator: 'semver_gt' },
      { key: 'plan', type: 'person', value: '^x', operator: 'regex' },
      { key: 'plan', type: 'person', value: 'b', operator: 'gt' },
    ];
    for (const [i, property] of conditions.entries()) {
      const flag = await t.request({ method: 'POST', url: `${p()}/feature_flags/`, payload: { key: `obj-${i}`, filters: { groups: [{ properties: [property], rollout_percentage: 100 }] } } });
      assert.equal(flag.statusCode, 201, flag.body);
    }
    const flags = await t.app.inject({ method: 'POST', url: '/flags?v=2', payload: { token, distinct_id: 'obj-user', person_properties: { email: hostile } } });
    assert.equal(flags.statusCode, 200, flags.body);
    const cohort = await t.request({ method: 'POST', url: `${p()}/cohorts/`, payload: { name: 'objects', filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'email', type: 'person', value: hostile, operator: 'icontains' }] }] } } } });
    assert.ok(cohort.statusCode < 500, cohort.body);
    const patched = await t.request({ method: 'PATCH', url: `${p()}/cohorts/${cohort.json().id}/`, payload: { name: 'objects 2', filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: hostile, operator: 'icontains' }] }] } } } });
    assert.ok(patched.statusCode < 500, patched.body);
  });
});

describe('unknown ids and database refusals', () => {
  test('survey linked_flag_id 0 is an invalid pk, on create and update', async () => {
    assert400(await t.request({ method: 'PATCH', url: `${p()}/surveys/${surveyId}/`, payload: { linked_flag_id: 0 } }), 'does_not_exist', 'linked_flag_id', 'Invalid pk "0" - object does not exist.');
    const created = await t.request({ method: 'POST', url: `${p()}/surveys/`, payload: { name: 'zero', type: 'popover', questions: [{ type: 'open', question: 'q' }], linked_flag_id: 0 } });
    assert400(created, 'does_not_exist', 'linked_flag_id');
  });

  test('an unknown linked flag keeps PostHog’s rule message', async () => {
    const response = await t.request({ method: 'PATCH', url: `${p()}/surveys/${surveyId}/`, payload: { linked_flag_id: 999_999 } });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().detail, 'Feature Flag with this ID does not exist');
  });

  test('PostgreSQL refusals map to 400/409, connection failures stay for the caller', () => {
    const fk = databaseErrorToApiError({ code: '23503', detail: 'Key (linked_flag_id)=(0) is not present in table "feature_flags".' });
    assert.deepEqual(fk?.toBody(), { type: 'validation_error', code: 'does_not_exist', detail: 'Invalid pk "0" - object does not exist.', attr: 'linked_flag_id' });
    assert.equal(databaseErrorToApiError({ code: '23503', detail: 'Key (id)=(1) is still referenced from table "surveys".' })?.status, 409);
    assert.equal(databaseErrorToApiError({ code: '23505' })?.status, 409);
    assert.equal(databaseErrorToApiError({ code: '22021' })?.status, 400);
    assert.equal(databaseErrorToApiError({ code: '22008' })?.status, 400);
    assert.equal(databaseErrorToApiError({ code: '54001' })?.status, 400);
    assert.equal(databaseErrorToApiError({ code: '57P01' }), null);
    assert.equal(databaseErrorToApiError({ code: 'ECONNRESET' }), null);
    assert.equal(databaseErrorToApiError(new Error('x')), null);
  });
});

describe('every accepted date-time is a real date', () => {
  const bad = ['2016-12-31T23:59:60Z', '2021-02-30T00:00:00Z', '2021-02-29T00:00:00Z', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '+275760-09-13T00:00:00Z', '99999-01-01T00:00:00Z', '2021-13-01T00:00:00Z', '2021-01-01T24:00:00Z'];
  const targets: [string, () => string][] = [
    ['created_at', () => `${p()}/feature_flags/${flagId}/`],
    ['last_called_at', () => `${p()}/feature_flags/${flagId}/`],
    ['start_date', () => `${p()}/surveys/${surveyId}/`],
    ['end_date', () => `${p()}/surveys/${surveyId}/`],
  ];
  for (const [field, url] of targets) {
    test(`${field}: leap seconds, impossible days, year 0 and huge years → 400`, async () => {
      for (const value of bad) {
        const response = await t.request({ method: 'PATCH', url: url(), payload: { [field]: value } });
        assert400(response, 'invalid_input', field);
      }
    });
  }

  test('isStorableDateTime accepts every RFC 3339 offset form', () => {
    for (const ok of ['2016-12-31T23:59:59Z', '2016-12-31 23:59:59z', '2020-02-29T00:00:00.123456+05:30', '2016-12-31T23:59:59+0530', '2016-12-31T23:59:59-05', '9999-12-31T23:59:59Z', '0001-01-01T00:00:00Z']) {
      assert.equal(isStorableDateTime(ok), true, ok);
    }
    for (const no of ['2016-12-31T23:59:60Z', '0000-06-01T00:00:00Z', '9999-12-31T23:59:59-01:00']) assert.equal(isStorableDateTime(no), false, no);
  });
});

describe('ingestion bounds what it expands', () => {
  const gzipped = (body: unknown) => gzipSync(Buffer.from(JSON.stringify(body)), { level: 9 });
  const post = (payload: Buffer | string, headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/batch/', payload, headers });

  test('a 100 KB gzip bomb stops at 20 MB of output: 413, nothing stored, memory bounded', async () => {
    const bomb = gzipped({ api_key: token, batch: [{ event: 'bomb', distinct_id: 'b', properties: { big: 'a'.repeat(99 * 1024 * 1024) } }] });
    assert.ok(bomb.length < 110 * 1024, `${bomb.length}`);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    const response = await post(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    clearInterval(sampler);
    assert.equal(response.statusCode, 413, response.body);
    assert.equal(response.json().code, 'request_too_large');
    assert.match(response.json().detail, /decompressed request body is larger than 20971520 bytes/);
    assert.ok(peak - before < 120 * 1024 * 1024, `RSS grew by ${Math.round((peak - before) / 1e6)} MB`);
    const { rows } = await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE event = 'bomb'`);
    assert.equal(rows[0].n, 0);
  });

  test('the same through base64 and posthog-js gzip-js', async () => {
    const bomb = gzipSync(Buffer.alloc(30 * 1024 * 1024, 0x20));
    const viaJs = await t.app.inject({ method: 'POST', url: '/e/?compression=gzip-js', payload: bomb, headers: { 'content-type': 'text/plain' } });
    assert.equal(viaJs.statusCode, 413, viaJs.body);
    const viaBase64 = await t.app.inject({ method: 'POST', url: '/e/', payload: `data=${encodeURIComponent(bomb.toString('base64'))}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(viaBase64.statusCode, 413, viaBase64.body);
  });

  test('an event over 1 MB: 413 naming it; the batch is not stored', async () => {
    const body = { api_key: token, batch: [{ event: 'small', distinct_id: 's' }, { event: 'large', distinct_id: 's', properties: { blob: 'x'.repeat(1024 * 1024) } }] };
    const response = await post(gzipped(body), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(response.statusCode, 413, response.body);
    assert.equal(response.json().attr, 'batch__1');
    const { rows } = await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE event IN ('small', 'large')`);
    assert.equal(rows[0].n, 0);
    const justUnder = { api_key: token, batch: [{ event: 'under', distinct_id: 's', properties: { blob: 'x'.repeat(1000 * 1024) } }] };
    assert.equal((await post(JSON.stringify(justUnder), { 'content-type': 'application/json' })).statusCode, 200);
  });
});
