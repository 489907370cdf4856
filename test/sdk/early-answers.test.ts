/**
 * The SDK routes' early answers (kernel/http/early-answer.ts) against the answers the same routes
 * give through Fastify's whole lifecycle, over a real socket: a body sent chunked (no declared
 * length) is never answered early, and HEAD is answered by Fastify from the GET route.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { rawHttp } from '../helpers/raw-http.ts';
import { createFlag, startSdkApp, type SdkTestApp } from './support.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function send(url: string, method: string, headers: Record<string, string>, body?: string, chunked = false): Promise<Answer> {
  const answer = await rawHttp(url, { method, headers, body, chunked });
  return { ...answer, body: answer.body.toString('utf8') };
}

/** Header names and values, but those that differ between any two answers (date, the request id, the length of a body with a new request id). */
function comparable(headers: http.IncomingHttpHeaders): Record<string, unknown> {
  const { date: _date, 'x-request-id': requestId, 'content-length': _length, ...rest } = headers;
  assert.match(String(requestId), /^[0-9a-f-]{36}$/);
  return rest;
}

/** The answer without its per-request fields. */
const withoutRequest = (body: string) => ({ ...JSON.parse(body), requestId: null, evaluatedAt: null });

describe('early answers of the SDK routes', () => {
  let t: SdkTestApp;

  before(async () => {
    t = await startSdkApp();
    await t.listen();
    await createFlag(t, { key: 'half', name: 'Half', active: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
    await createFlag(t, {
      key: 'with-payload',
      name: '',
      active: true,
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"a":"é"}' } },
    });
  });
  after(async () => t.close());

  test('POST /flags?v=2 and /decide?v=4: the same status, headers and answer as through the whole lifecycle', async () => {
    for (const path of ['/flags?v=2', '/flags/?v=2&config=true', '/decide/?v=4', '/flags']) {
      for (const origin of [{}, { origin: 'https://shop.example' }] as Record<string, string>[]) {
        const headers = { 'content-type': 'application/json', ...origin };
        const body = JSON.stringify({ token: t.token, distinct_id: 'user-ü-1', person_properties: { plan: 'pro' } });
        const early = await send(`${t.url}${path}`, 'POST', headers, body);
        const whole = await send(`${t.url}${path}`, 'POST', headers, body, true);
        assert.equal(early.status, 200, early.body);
        assert.equal(whole.status, 200, whole.body);
        assert.deepEqual(comparable(early.headers), comparable(whole.headers), path);
        assert.equal(early.headers['content-length'], String(Buffer.byteLength(early.body)));
        assert.deepEqual(withoutRequest(early.body), withoutRequest(whole.body), path);
      }
    }
  });

  test('refusals are the route\'s own, whichever way the body comes', async () => {
    const cases: [string, string | undefined, number][] = [
      [JSON.stringify({ token: 'phc_unknown', distinct_id: 'a' }), 'application/json', 401],
      [JSON.stringify({ distinct_id: 'a' }), 'application/json', 401],
      [JSON.stringify({ token: t.token }), 'application/json', 400],
      [JSON.stringify({ token: t.token, distinct_id: 'a', groups: 'x' }), 'application/json', 400],
      ['{"token": ', 'application/json', 400],
      ['', undefined, 401],
    ];
    for (const [body, contentType, status] of cases) {
      const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
      const early = await send(`${t.url}/flags?v=2`, 'POST', headers, body);
      const whole = await send(`${t.url}/flags?v=2`, 'POST', headers, body, true);
      assert.equal(early.status, status, `${body}: ${early.body}`);
      assert.equal(whole.status, status, `${body}: ${whole.body}`);
      assert.deepEqual(JSON.parse(early.body), JSON.parse(whole.body));
      assert.deepEqual(comparable(early.headers), comparable(whole.headers), body);
    }
  });

  test('GET /flags/definitions: the headers HEAD gets through the whole lifecycle, 304 and gzip', async () => {
    const headers = { authorization: `Bearer ${t.key}` };
    for (const path of [`/flags/definitions?token=${t.token}`, `/api/feature_flag/local_evaluation?token=${t.token}`, `/api/projects/${t.projectId}/feature_flags/local_evaluation`]) {
      const early = await send(`${t.url}${path}`, 'GET', headers);
      const head = await send(`${t.url}${path}`, 'HEAD', headers);
      assert.equal(early.status, 200, early.body);
      assert.equal(head.status, 200);
      assert.deepEqual(comparable(early.headers), comparable(head.headers), path);
      assert.equal(JSON.parse(early.body).flags.length, 2);
      const notModified = await send(`${t.url}${path}`, 'GET', { ...headers, 'if-none-match': String(early.headers.etag) });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.body, '');
      assert.equal(notModified.headers.etag, early.headers.etag);
    }
    const refused = await send(`${t.url}/flags/definitions`, 'GET', { authorization: 'Bearer phx_not_a_key' });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers['x-content-type-options'], 'nosniff');
  });
});
