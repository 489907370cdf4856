import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { inRollout } from '../../src/evaluation/index.ts';
import {
  addToStaticCohort,
  capture,
  createFlag,
  groupIdentify,
  identify,
  insertCohort,
  patchFlag,
  postFlags,
  startSdkApp,
  type Json,
  type SdkTestApp,
} from './support.ts';

let t: SdkTestApp;
const ids: Record<string, number> = {};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const person = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'person' });

before(async () => {
  t = await startSdkApp();
  await capture(t, [
    identify('alice', { plan: 'pro', email: 'alice@example.com' }),
    identify('bob', { plan: 'free' }),
    groupIdentify('company', 'acme', { employees: 120 }),
    groupIdentify('company', 'tiny', { employees: 3 }),
  ]);
  const members = await insertCohort(t, { name: 'members', isStatic: true });
  await addToStaticCohort(t, members, ['alice']);
  const pros = await insertCohort(t, { name: 'pros', properties: { type: 'OR', values: [{ type: 'AND', values: [person('plan', 'exact', 'pro')] }] } });

  const flag = async (key: string, body: Json) => (ids[key] = (await createFlag(t, { key, ...body })).id);
  await flag('bool-on', { name: 'Always on', filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"a":1}' } } });
  await flag('pro-only', { filters: { groups: [{ properties: [person('plan', 'exact', 'pro')], rollout_percentage: 100 }] } });
  await flag('multi', {
    filters: {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
      payloads: { control: '"c"', test: '"t"' },
    },
  });
  await flag('inactive', { active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('company-big', {
    filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'employees', operator: 'gt', value: '100', type: 'group', group_type_index: 0 }], rollout_percentage: 100 }] },
  });
  await flag('static-members', { filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: members, operator: 'in' }], rollout_percentage: 100 }] } });
  await flag('dynamic-cohort', { filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: pros, operator: 'in' }], rollout_percentage: 100 }] } });
  await flag('server-only', { evaluation_runtime: 'server', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('client-only', { evaluation_runtime: 'client', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('continuity', { ensure_experience_continuity: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  await flag('depends', {
    filters: { groups: [{ properties: [{ key: String(ids['pro-only']), type: 'flag', value: true, operator: 'flag_evaluates_to' }], rollout_percentage: 100 }] },
  });
  await flag('tagged', { tags: ['web'], evaluation_tags: ['web'], filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('survey-targeting-abc', { filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('soon-deleted', { filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await patchFlag(t, ids['soon-deleted'], { deleted: true });
});
after(() => t.close());

async function v2(body: Json, query = 'v=2'): Promise<Json> {
  const response = await postFlags(t, body, query);
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

describe('POST /flags?v=2', () => {
  test('the detail map: values, reasons, metadata and payloads', async () => {
    const body = await v2({ distinct_id: 'alice', groups: { company: 'acme' } });
    assert.match(body.requestId, UUID);
    assert.equal(typeof body.evaluatedAt, 'number');
    assert.ok(Math.abs(body.evaluatedAt - Date.now()) < 10_000);
    assert.equal(body.errorsWhileComputingFlags, false);
    assert.deepEqual(body.flags['bool-on'], {
      key: 'bool-on',
      enabled: true,
      variant: null,
      reason: { code: 'condition_match', condition_index: 0, description: 'Matched condition set 1' },
      metadata: { id: ids['bool-on'], version: 1, description: 'Always on', payload: '{"a":1}' },
    });
    assert.equal(body.flags['pro-only'].enabled, true);
    assert.equal(body.flags['company-big'].enabled, true);
    assert.equal(body.flags['static-members'].enabled, true);
    assert.equal(body.flags['dynamic-cohort'].enabled, true);
    assert.equal(body.flags.depends.enabled, true);
    assert.ok(['control', 'test'].includes(body.flags.multi.variant));
    assert.equal(body.flags.multi.metadata.payload, body.flags.multi.variant === 'control' ? '"c"' : '"t"');
    // Inactive flags are listed, disabled; deleted ones are not.
    assert.deepEqual(body.flags.inactive.reason, { code: 'flag_disabled', condition_index: null, description: 'Feature flag is disabled' });
    assert.equal(body.flags.inactive.enabled, false);
    assert.equal(body.flags.inactive.metadata.payload, null);
    assert.ok(!('soon-deleted' in body.flags));
  });

  test('stored person properties, with the sent ones winning', async () => {
    const bob = await v2({ distinct_id: 'bob' });
    assert.equal(bob.flags['pro-only'].enabled, false);
    assert.deepEqual(bob.flags['pro-only'].reason, { code: 'no_condition_match', condition_index: 0, description: 'No matching condition set' });
    assert.equal(bob.flags['static-members'].enabled, false);
    assert.equal(bob.flags['dynamic-cohort'].enabled, false);
    assert.equal(bob.flags.depends.enabled, false);
    assert.equal((await v2({ distinct_id: 'bob', person_properties: { plan: 'pro' } })).flags['pro-only'].enabled, true);
    assert.equal((await v2({ distinct_id: 'alice', person_properties: { plan: 'free' } })).flags['pro-only'].enabled, false);
    // An unknown person: only what is sent.
    assert.equal((await v2({ distinct_id: 'nobody' })).flags['pro-only'].enabled, false);
    assert.equal((await v2({ distinct_id: 'nobody', person_properties: { plan: 'pro' } })).flags['pro-only'].enabled, true);
  });

  test('group flags: stored group properties, sent ones winning, no group → no_group_type', async () => {
    assert.equal((await v2({ distinct_id: 'bob', groups: { company: 'acme' } })).flags['company-big'].enabled, true);
    assert.equal((await v2({ distinct_id: 'bob', groups: { company: 'tiny' } })).flags['company-big'].enabled, false);
    const overridden = await v2({ distinct_id: 'bob', groups: { company: 'acme' }, group_properties: { company: { employees: 5 } } });
    assert.equal(overridden.flags['company-big'].enabled, false);
    const sentOnly = await v2({ distinct_id: 'bob', groups: { company: 'new-co' }, group_properties: { company: { employees: 500 } } });
    assert.equal(sentOnly.flags['company-big'].enabled, true);
    const none = await v2({ distinct_id: 'bob' });
    assert.deepEqual(none.flags['company-big'].reason, { code: 'no_group_type', condition_index: null, description: 'No group type' });
  });

  test('evaluation_runtime, flag_keys_to_evaluate, evaluation_contexts and survey flags select the flags', async () => {
    const server = await v2({ distinct_id: 'bob', evaluation_runtime: 'server' });
    assert.ok('server-only' in server.flags && !('client-only' in server.flags) && 'bool-on' in server.flags);
    const client = await v2({ distinct_id: 'bob', evaluation_runtime: 'client' });
    assert.ok(!('server-only' in client.flags) && 'client-only' in client.flags);
    const all = await v2({ distinct_id: 'bob' });
    assert.ok('server-only' in all.flags && 'client-only' in all.flags);

    const only = await v2({ distinct_id: 'alice', flag_keys_to_evaluate: ['depends', 'multi'] });
    assert.deepEqual(Object.keys(only.flags).sort(), ['depends', 'multi']);
    assert.equal(only.flags.depends.enabled, true, 'dependencies are evaluated even when not asked for');

    assert.ok('tagged' in (await v2({ distinct_id: 'bob', evaluation_contexts: ['web'] })).flags);
    const other = await v2({ distinct_id: 'bob', evaluation_contexts: ['mobile'] });
    assert.ok(!('tagged' in other.flags) && 'bool-on' in other.flags);

    const surveys = await v2({ distinct_id: 'bob' }, 'v=2&only_evaluate_survey_feature_flags=true');
    assert.deepEqual(Object.keys(surveys.flags), ['survey-targeting-abc']);
  });

  test('experience continuity: the anonymous id becomes the hash key, the first time only', async () => {
    // Anonymous ids whose bucket differs from alice's own, so the override is visible in the answer.
    const own = inRollout('continuity', 'alice', 50);
    const candidates = Array.from({ length: 50 }, (_, i) => `anon-${i}`).filter((id) => inRollout('continuity', id, 50) !== own);
    const [first, second] = candidates;
    assert.ok(first && second);
    assert.equal((await v2({ distinct_id: 'alice' })).flags.continuity.enabled, own);
    assert.equal((await v2({ distinct_id: 'alice', $anon_distinct_id: first })).flags.continuity.enabled, !own);
    // Kept: a later anonymous id changes nothing, and requests without one use the stored key.
    assert.equal((await v2({ distinct_id: 'alice', $anon_distinct_id: 'alice' })).flags.continuity.enabled, !own);
    assert.equal((await v2({ distinct_id: 'alice' })).flags.continuity.enabled, !own);
    const { rows } = await t.db.pool.query(
      `SELECT o.feature_flag_key, o.hash_key FROM feature_flag_hash_key_overrides o
         JOIN person_distinct_ids d ON d.person_id = o.person_id WHERE d.distinct_id = 'alice'`,
    );
    assert.deepEqual(rows, [{ feature_flag_key: 'continuity', hash_key: first }]);
    // No person for either id: nothing written, the distinct id is hashed.
    assert.equal((await v2({ distinct_id: 'ghost', $anon_distinct_id: first })).flags.continuity.enabled, inRollout('continuity', 'ghost', 50));
    assert.equal((await t.db.pool.query('SELECT 1 FROM feature_flag_hash_key_overrides')).rowCount, 1);
  });

  test("a cohort changed through this process's cohorts API is seen by the next requests", async () => {
    const made = await t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/cohorts/`,
      payload: { name: 'emails', filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [person('email', 'icontains', 'example')] }] } } },
    });
    assert.equal(made.statusCode, 201, made.body);
    const flag = await createFlag(t, { key: 'by-cohort-api', filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: made.json().id, operator: 'in' }], rollout_percentage: 100 }] } });
    assert.equal((await v2({ distinct_id: 'alice' })).flags['by-cohort-api'].enabled, true);
    const changed = await t.request({
      method: 'PATCH',
      url: `/api/projects/${t.projectId}/cohorts/${made.json().id}/`,
      payload: { filters: { properties: { type: 'AND', values: [{ type: 'AND', values: [person('email', 'icontains', 'nowhere')] }] } } },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    // No waiting: the writer announces the change to this process once committed.
    assert.equal((await v2({ distinct_id: 'alice' })).flags['by-cohort-api'].enabled, false);
    await patchFlag(t, flag.id, { deleted: true });
  });

  test('a flag change is seen by the next request', async () => {
    await patchFlag(t, ids['pro-only'], { filters: { groups: [{ properties: [person('plan', 'exact', 'free')], rollout_percentage: 100 }] } });
    assert.equal((await v2({ distinct_id: 'bob' })).flags['pro-only'].enabled, true);
    await patchFlag(t, ids['pro-only'], { filters: { groups: [{ properties: [person('plan', 'exact', 'pro')], rollout_percentage: 100 }] } });
    assert.equal((await v2({ distinct_id: 'bob' })).flags['pro-only'].enabled, false);
  });
});

describe('legacy shapes', () => {
  test('/flags without v (or v=1): featureFlags with every flag, featureFlagPayloads of the enabled ones', async () => {
    for (const query of ['', 'v=1']) {
      const response = await postFlags(t, { distinct_id: 'alice' }, query);
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.featureFlags['bool-on'], true);
      assert.equal(body.featureFlags.inactive, false);
      assert.ok(['control', 'test'].includes(body.featureFlags.multi));
      assert.equal(body.featureFlagPayloads['bool-on'], '{"a":1}');
      assert.ok(!('inactive' in body.featureFlagPayloads));
      assert.equal(body.errorsWhileComputingFlags, false);
      assert.match(body.requestId, UUID);
      assert.ok(!('flags' in body) && !('config' in body));
    }
  });

  test('config=true adds the config keys', async () => {
    const body = await v2({ distinct_id: 'alice' }, 'v=2&config=true');
    assert.ok(body.flags['bool-on']);
    assert.deepEqual(body.config, { enable_collect_everything: true });
    assert.deepEqual(body.supportedCompression, ['gzip', 'gzip-js']);
    assert.equal(body.sessionRecording, false);
    assert.ok(!('config' in (await v2({ distinct_id: 'alice' }))));
  });

  test('/decide v1–v4', async () => {
    const decide = async (v: string) => {
      const response = await postFlags(t, { distinct_id: 'bob' }, v, '/decide/');
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual(body.config, { enable_collect_everything: true });
      return body;
    };
    const v1 = await decide('v=1');
    assert.ok(Array.isArray(v1.featureFlags) && v1.featureFlags.includes('bool-on') && !v1.featureFlags.includes('pro-only'));
    assert.deepEqual((await decide('')).featureFlags, v1.featureFlags);
    const v2body = await decide('v=2');
    assert.equal(v2body.featureFlags['bool-on'], true);
    assert.ok(!('pro-only' in v2body.featureFlags));
    const v3 = await decide('v=3');
    assert.equal(v3.featureFlags['pro-only'], false);
    assert.equal(v3.featureFlagPayloads['bool-on'], '{"a":1}');
    const v4 = await decide('v=4');
    assert.equal(v4.flags['bool-on'].enabled, true);
    assert.equal(v4.flags['pro-only'].reason.code, 'no_condition_match');
  });
});

describe('bodies, tokens and errors', () => {
  test('gzip, base64 forms and ?token= are read', async () => {
    const json = JSON.stringify({ api_key: t.token, distinct_id: 'alice' });
    const gzipped = await t.app.inject({
      method: 'POST',
      url: '/flags/?v=2',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(json),
    });
    assert.equal(gzipped.statusCode, 200, gzipped.body);
    assert.equal(gzipped.json().flags['pro-only'].enabled, true);
    const form = await t.app.inject({
      method: 'POST',
      url: '/flags/?v=2&compression=base64',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `data=${encodeURIComponent(Buffer.from(json).toString('base64'))}`,
    });
    assert.equal(form.statusCode, 200, form.body);
    assert.equal(form.json().flags['pro-only'].enabled, true);
    const query = await t.app.inject({ method: 'POST', url: `/flags?v=2&token=${t.token}`, payload: { distinct_id: 'alice' } });
    assert.equal(query.statusCode, 200, query.body);
  });

  test('401 without a token or with an unknown one', async () => {
    const missing = await t.app.inject({ method: 'POST', url: '/flags/?v=2', payload: { distinct_id: 'alice' } });
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.json().code, 'not_authenticated');
    const empty = await t.app.inject({ method: 'POST', url: '/flags/?v=2' });
    assert.equal(empty.statusCode, 401);
    const unknown = await t.app.inject({ method: 'POST', url: '/decide/?v=3', payload: { token: 'phc_nope', distinct_id: 'alice' } });
    assert.equal(unknown.statusCode, 401);
    assert.deepEqual(Object.keys(unknown.json()).sort(), ['attr', 'code', 'detail', 'type']);
    assert.equal(unknown.json().code, 'authentication_failed');
    // The token check comes first: a bad body with a bad token is a 401.
    assert.equal((await t.app.inject({ method: 'POST', url: '/flags/', payload: { token: 'phc_nope', groups: 'x' } })).statusCode, 401);
  });

  test('400 for a missing distinct_id, bad shapes and unreadable bodies', async () => {
    const missing = await postFlags(t, {});
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().attr, 'distinct_id');
    assert.equal((await postFlags(t, { distinct_id: '' })).statusCode, 400);
    assert.equal((await postFlags(t, { distinct_id: { a: 1 } })).statusCode, 400);
    for (const [field, value] of [['groups', 'acme'], ['groups', { company: { a: 1 } }], ['person_properties', [1]], ['group_properties', { company: 3 }], ['flag_keys_to_evaluate', 'x']] as const) {
      const response = await postFlags(t, { distinct_id: 'alice', [field]: value });
      assert.equal(response.statusCode, 400, `${field}: ${response.body}`);
      assert.equal(response.json().type, 'validation_error');
      assert.ok(String(response.json().attr).startsWith(field), response.body);
    }
    const broken = await t.app.inject({ method: 'POST', url: '/flags/', headers: { 'content-type': 'application/json' }, payload: '{"token": ' });
    assert.equal(broken.statusCode, 400);
    assert.equal(broken.json().code, 'parse_error');
    // A numeric distinct id is its text.
    assert.equal((await postFlags(t, { distinct_id: 42 })).statusCode, 200);
  });

  test('CORS for browsers, 405 for other methods', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/flags/?v=2',
      headers: { origin: 'https://example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://example.com');
    const post = await t.app.inject({ method: 'POST', url: '/flags/?v=2', headers: { origin: 'https://example.com' }, payload: { token: t.token, distinct_id: 'a' } });
    assert.equal(post.headers['access-control-allow-origin'], 'https://example.com');
    const get = await t.app.inject({ method: 'GET', url: '/flags/' });
    assert.equal(get.statusCode, 405);
    assert.match(String(get.headers.allow), /POST/);
  });
});
