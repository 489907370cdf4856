// OFREP through the real OpenFeature server SDK and OFREP provider (and the OFREP core client for
// the bulk endpoint), against the service listening on a port.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OpenFeature, type Client } from '@openfeature/server-sdk';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OFREPApi } from '@openfeature/ofrep-core';
import { capture, createFlag, groupIdentify, identify, startSdkApp, type Json, type SdkTestApp } from './support.ts';

let t: SdkTestApp;
let client: Client;
let anonymous: Client;
const ids: Record<string, number> = {};
const person = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'person' });

before(async () => {
  t = await startSdkApp();
  await t.listen();
  await capture(t, [identify('alice', { plan: 'pro' }), identify('bob', { plan: 'free' }), groupIdentify('company', 'acme', { size: 'large' })]);
  const flag = async (key: string, body: Json) => (ids[key] = (await createFlag(t, { key, ...body })).id);
  await flag('pro', { name: 'Pro users', filters: { groups: [{ properties: [person('plan', 'exact', 'pro')], rollout_percentage: 100 }], payloads: { true: '{"tier":1}' } } });
  await flag('everyone', { filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('half', { filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  await flag('off', { active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('colour', {
    filters: {
      groups: [{ properties: [person('plan', 'is_set', 'is_set')], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: 'red', rollout_percentage: 50 }, { key: 'blue', rollout_percentage: 50 }] },
    },
  });
  await flag('large', {
    filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'size', value: 'large', operator: 'exact', type: 'group', group_type_index: 0 }] }] },
  });
  await OpenFeature.setProviderAndWait('bellwether', new OFREPProvider({ baseUrl: t.url, headers: { Authorization: `Bearer ${t.token}` } }));
  await OpenFeature.setProviderAndWait('wrong-token', new OFREPProvider({ baseUrl: t.url, headers: { Authorization: 'Bearer phc_wrong' } }));
  client = OpenFeature.getClient('bellwether');
  anonymous = OpenFeature.getClient('wrong-token');
});
after(async () => {
  await OpenFeature.close();
  await t.close();
});

describe('OFREP single flag, through the OpenFeature SDK', () => {
  test('a targeting match: value, reason, variant and metadata; stored person properties count', async () => {
    const details = await client.getBooleanDetails('pro', false, { targetingKey: 'alice' });
    assert.equal(details.value, true);
    assert.equal(details.reason, 'TARGETING_MATCH');
    assert.equal(details.variant, 'true');
    assert.equal(details.errorCode, undefined);
    assert.deepEqual(details.flagMetadata, {
      flagId: ids.pro,
      version: 1,
      posthogReason: 'condition_match',
      conditionIndex: 0,
      description: 'Pro users',
      payload: '{"tier":1}',
    });
    const bob = await client.getBooleanDetails('pro', true, { targetingKey: 'bob' });
    assert.equal(bob.value, false);
    assert.equal(bob.reason, 'DEFAULT');
    // Attributes are person properties, over the stored ones.
    assert.equal(await client.getBooleanValue('pro', false, { targetingKey: 'bob', plan: 'pro' }), true);
  });

  test('static, split and disabled reasons; multivariate strings; groups', async () => {
    const everyone = await client.getBooleanDetails('everyone', false, { targetingKey: 'x' });
    assert.deepEqual([everyone.value, everyone.reason], [true, 'STATIC']);
    for (const id of ['u1', 'u2', 'u3', 'u4']) {
      const half = await client.getBooleanDetails('half', false, { targetingKey: id });
      assert.equal(half.reason, 'SPLIT', id);
    }
    const off = await client.getBooleanDetails('off', true, { targetingKey: 'alice' });
    assert.deepEqual([off.value, off.reason], [false, 'DISABLED']);

    const colour = await client.getStringDetails('colour', 'none', { targetingKey: 'alice' });
    assert.ok(['red', 'blue'].includes(colour.value));
    assert.equal(colour.variant, colour.value);
    assert.equal(colour.reason, 'TARGETING_MATCH', 'a condition set with properties matched');
    // No match: the value is false, so a string request falls back to its default.
    const unmatched = await client.getStringDetails('colour', 'none', { targetingKey: 'nobody-at-all' });
    assert.equal(unmatched.value, 'none');
    assert.equal(unmatched.errorCode, 'TYPE_MISMATCH');

    assert.equal(await client.getBooleanValue('large', false, { targetingKey: 'bob', groups: { company: 'acme' } }), true);
    assert.equal(await client.getBooleanValue('large', true, { targetingKey: 'bob' }), false);
    assert.equal(await client.getBooleanValue('large', false, { targetingKey: 'bob', groups: { company: 'new' }, groupProperties: { company: { size: 'large' } } }), true);
  });

  test('errors: unknown flag, missing targeting key, bad context, bad token', async () => {
    const missing = await client.getBooleanDetails('no-such-flag', true, { targetingKey: 'alice' });
    assert.deepEqual([missing.value, missing.errorCode], [true, 'FLAG_NOT_FOUND']);
    const noKey = await client.getBooleanDetails('pro', false, {});
    assert.equal(noKey.errorCode, 'TARGETING_KEY_MISSING');
    const badGroups = await client.getBooleanDetails('pro', false, { targetingKey: 'alice', groups: 'acme' });
    assert.equal(badGroups.errorCode, 'INVALID_CONTEXT');
    const unauthorized = await anonymous.getBooleanDetails('pro', false, { targetingKey: 'alice' });
    assert.equal(unauthorized.value, false);
    assert.equal(unauthorized.errorCode, 'GENERAL');
  });

  test('the HTTP answers themselves', async () => {
    const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${t.token}` }) =>
      fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const notFound = await post('/ofrep/v1/evaluate/flags/nope', { context: { targetingKey: 'a' } });
    assert.equal(notFound.status, 404);
    assert.deepEqual(await notFound.json(), { key: 'nope', errorCode: 'FLAG_NOT_FOUND', errorDetails: 'No flag with key "nope" in this project.' });
    const invalid = await post('/ofrep/v1/evaluate/flags/pro', { context: 'alice' });
    assert.equal(invalid.status, 400);
    assert.equal((await invalid.json()).errorCode, 'INVALID_CONTEXT');
    assert.equal((await post('/ofrep/v1/evaluate/flags/pro', { context: { targetingKey: 'a' } }, {})).status, 401);
    const byQuery = await post(`/ofrep/v1/evaluate/flags/pro?token=${t.token}`, { context: { targetingKey: 'alice' } }, {});
    assert.equal(byQuery.status, 200);
    assert.deepEqual(await byQuery.json(), {
      key: 'pro',
      value: true,
      reason: 'TARGETING_MATCH',
      variant: 'true',
      metadata: { flagId: ids.pro, version: 1, posthogReason: 'condition_match', conditionIndex: 0, description: 'Pro users', payload: '{"tier":1}' },
    });
    const unparsable = await fetch(`${t.url}/ofrep/v1/evaluate/flags/pro`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
      body: '{"context": ',
    });
    assert.equal(unparsable.status, 400);
    assert.equal((await unparsable.json()).errorCode, 'PARSE_ERROR');
  });
});

describe('OFREP bulk, through the OFREP core client', () => {
  test('every flag; ETag and 304', async () => {
    const api = new OFREPApi(t.url);
    const options = { headers: [['Authorization', `Bearer ${t.token}`]] as [string, string][] };
    const first = await api.postBulkEvaluateFlags({ context: { targetingKey: 'alice' } }, options);
    assert.equal(first.httpStatus, 200);
    const flags = (first.value as { flags: Json[] }).flags;
    assert.deepEqual(flags.map((flag) => flag.key), ['colour', 'everyone', 'half', 'large', 'off', 'pro']);
    assert.equal(flags.find((flag) => flag.key === 'pro')!.value, true);
    assert.equal(flags.find((flag) => flag.key === 'off')!.reason, 'DISABLED');
    const etag = first.httpResponse!.headers.get('etag');
    assert.match(String(etag), /^W\/"[0-9a-f]{32}"$/);

    const again = await api.postBulkEvaluateFlags({ context: { targetingKey: 'alice' } }, { headers: [...options.headers, ['If-None-Match', etag!]] });
    assert.equal(again.httpStatus, 304);
    const other = await api.postBulkEvaluateFlags({ context: { targetingKey: 'bob' } }, { headers: [...options.headers, ['If-None-Match', etag!]] });
    assert.equal(other.httpStatus, 200, 'another person, other values: a new ETag');

    const noKey = await api.postBulkEvaluateFlags({ context: {} }, options);
    assert.equal(noKey.httpStatus, 400);
    assert.equal((noKey.value as Json).errorCode, 'TARGETING_KEY_MISSING');
  });
});
