/**
 * The flag definitions answered raw (kernel/http/raw-answers.ts, sdk/routes/definitions.ts) over
 * a real socket: the same answer and headers as Fastify's path (a doubled slash goes there), 304,
 * gzip, and the remembered grant: a revoked key, a rotated secret or a removed project access stop
 * working from the next poll in this process; refusals are the route's own.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { rawHttp } from '../helpers/raw-http.ts';
import { createFlag, patchFlag, startSdkApp, type SdkTestApp } from './support.ts';
import { eventually } from '../helpers/eventually.ts';

const get = (url: string, headers: Record<string, string> = {}) => rawHttp(url, { headers });

function comparable(headers: http.IncomingHttpHeaders) {
  const { date: _date, 'x-request-id': id, ...rest } = headers;
  assert.match(String(id), /^[0-9a-f-]{36}$/);
  return rest;
}

let t: SdkTestApp;
let flagId: number;

before(async () => {
  t = await startSdkApp();
  await t.listen();
  flagId = (await createFlag(t, { key: 'one', name: 'One', active: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } })).id;
  // Over the size gzip is made for.
  await createFlag(t, {
    key: 'large',
    name: 'Large',
    active: true,
    filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: JSON.stringify({ text: 'x'.repeat(2_000) }) } },
  });
});
after(async () => t.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('flag definitions answered raw', () => {
  test('the same status, headers and bytes as through Fastify, for a personal key and the secret token, plain, 304 and gzip', async () => {
    for (const [key, query] of [[t.key, `?token=${t.token}`], [t.secret, ''], [t.key, '?send_cohorts']] as const) {
      for (const path of ['/flags/definitions', '/api/feature_flag/local_evaluation']) {
        for (const origin of [{}, { origin: 'https://shop.example' }] as Record<string, string>[]) {
          const raw = await get(`${t.url}${path}${query}`, { ...bearer(key), ...origin });
          const whole = await get(`${t.url}/${path}${query}`, { ...bearer(key), ...origin });
          assert.equal(raw.status, 200, raw.body.toString());
          assert.deepEqual(comparable(raw.headers), comparable(whole.headers), path);
          assert.deepEqual(raw.body, whole.body);
          assert.equal(JSON.parse(raw.body.toString()).flags.length, 2);

          const etag = String(raw.headers.etag);
          const rawNot = await get(`${t.url}${path}${query}`, { ...bearer(key), 'if-none-match': etag });
          const wholeNot = await get(`${t.url}/${path}${query}`, { ...bearer(key), 'if-none-match': etag });
          assert.equal(rawNot.status, 304);
          assert.equal(rawNot.body.length, 0);
          assert.deepEqual(comparable(rawNot.headers), comparable(wholeNot.headers));
        }
      }
    }
    // gzip: made once per version, then served to every client that accepts it.
    const gzipped = await eventually(
      'the gzip made',
      () => get(`${t.url}/flags/definitions`, { ...bearer(t.secret), 'accept-encoding': 'gzip' }),
      (answer) => answer.headers['content-encoding'] === 'gzip',
    );
    const plain = await get(`${t.url}/flags/definitions`, bearer(t.secret));
    assert.deepEqual(gunzipSync(gzipped.body), plain.body);
    assert.equal(gzipped.headers.etag, plain.headers.etag);
    assert.equal(gzipped.headers.vary, 'accept-encoding');
    const wholeGzipped = await get(`${t.url}//flags/definitions`, { ...bearer(t.secret), 'accept-encoding': 'gzip' });
    assert.deepEqual(comparable(gzipped.headers), comparable(wholeGzipped.headers));
  });

  test('a change is in the next poll', async () => {
    const before = await get(`${t.url}/flags/definitions`, bearer(t.secret));
    await patchFlag(t, flagId, { name: 'Renamed' });
    const after = await get(`${t.url}/flags/definitions`, bearer(t.secret));
    assert.notEqual(after.headers.etag, before.headers.etag);
    assert.equal(JSON.parse(after.body.toString()).flags.find((flag: { key: string }) => flag.key === 'one').name, 'Renamed');
  });

  test('refusals are the route\'s: no key, a bad key, a key without the scope, an unknown project token', async () => {
    const cases: [Record<string, string>, string, number][] = [
      [{}, '', 401],
      [bearer('phx_wrong'), '', 401],
      [bearer('phs_wrong'), '', 401],
      [{ authorization: 'Basic abc' }, '', 401],
      [bearer(t.key), '?token=phc_unknown', 401],
    ];
    const noScope = (await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'surveys', scopes: ['survey:read'] } })).json().value;
    cases.push([bearer(noScope), '', 403]);
    for (const [headers, query, status] of cases) {
      const raw = await get(`${t.url}/flags/definitions${query}`, headers);
      const whole = await get(`${t.url}//flags/definitions${query}`, headers);
      assert.equal(raw.status, status, `${JSON.stringify(headers)}${query}: ${raw.body.toString()}`);
      assert.deepEqual(JSON.parse(raw.body.toString()), JSON.parse(whole.body.toString()));
      assert.deepEqual(comparable(raw.headers), comparable(whole.headers));
    }
  });

  test('a remembered grant ends with its key, its secret or its access, from the next poll', async () => {
    const made = (await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'poller', scopes: ['feature_flag:read'] } })).json();
    assert.equal((await get(`${t.url}/flags/definitions`, bearer(made.value))).status, 200);
    assert.equal((await get(`${t.url}/flags/definitions`, bearer(made.value))).status, 200);
    assert.equal((await t.request({ method: 'DELETE', url: `/api/personal_api_keys/${made.id}/` })).statusCode, 204);
    assert.equal((await get(`${t.url}/flags/definitions`, bearer(made.value))).status, 401);

    const oldSecret = t.secret;
    assert.equal((await get(`${t.url}/flags/definitions`, bearer(oldSecret))).status, 200);
    const rotated = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/rotate_secret_token/` });
    assert.equal(rotated.statusCode, 200);
    assert.equal((await get(`${t.url}/flags/definitions`, bearer(oldSecret))).status, 401);
    t.secret = rotated.json().secret_api_token;
    assert.equal((await get(`${t.url}/flags/definitions`, bearer(t.secret))).status, 200);
  });
});
