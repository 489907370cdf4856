import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, createFlag, groupIdentify, identify, insertCohort, startSdkApp, type Json, type SdkTestApp } from './support.ts';

let t: SdkTestApp;
const person = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'person' });
const url = () => `/api/projects/${t.projectId}/feature_flags/playground/`;
const play = (payload: Json, key?: string | null) => t.request({ method: 'POST', url: url(), payload, ...(key === undefined ? {} : { key }) });
const byKey = (body: Json) => Object.fromEntries((body.flags as Json[]).map((flag) => [flag.key, flag]));

before(async () => {
  t = await startSdkApp();
  await capture(t, [identify('alice', { plan: 'pro' }), groupIdentify('company', 'acme', { size: 'large' })]);
  const cohort = await insertCohort(t, { properties: { type: 'AND', values: [{ type: 'AND', values: [person('country', 'exact', 'FR')] }] } });
  await createFlag(t, { key: 'pro', filters: { groups: [{ properties: [person('plan', 'exact', 'free')] }, { properties: [person('plan', 'exact', 'pro')] }] } });
  await createFlag(t, { key: 'off', active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await createFlag(t, { key: 'nobody', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
  await createFlag(t, {
    key: 'variants',
    filters: {
      groups: [{ properties: [], rollout_percentage: 100, variant: 'b' }],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
      payloads: { b: '{"color":"blue"}' },
    },
  });
  await createFlag(t, { key: 'french', filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohort }], rollout_percentage: 100 }] } });
  await createFlag(t, {
    key: 'large-companies',
    filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'size', value: 'large', operator: 'exact', type: 'group', group_type_index: 0 }] }] },
  });
});
after(() => t.close());

describe('playground', () => {
  test('every live flag for made-up properties, newest first, with value, payload and reason', async () => {
    const response = await play({
      distinct_id: 'someone-new',
      person_properties: { plan: 'pro', country: 'FR' },
      groups: { company: 'globex' },
      group_properties: { company: { size: 'large' } },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.distinct_id, 'someone-new');
    assert.deepEqual(body.unknown_keys, []);
    assert.deepEqual(body.flags.map((flag: Json) => flag.key), ['large-companies', 'french', 'variants', 'nobody', 'off', 'pro']);
    const flags = byKey(body);
    assert.deepEqual(
      { value: flags.pro.value, reason: flags.pro.reason, condition_index: flags.pro.condition_index },
      { value: true, reason: 'condition_match', condition_index: 1 },
    );
    assert.equal(typeof flags.pro.reason_description, 'string');
    assert.deepEqual([flags.off.value, flags.off.active, flags.off.reason], [false, false, 'flag_disabled']);
    assert.deepEqual([flags.nobody.value, flags.nobody.reason], [false, 'out_of_rollout_bound']);
    assert.deepEqual([flags.variants.value, flags.variants.payload], ['b', { color: 'blue' }]);
    assert.deepEqual([flags.french.value, flags.french.reason], [true, 'condition_match'], 'a cohort matched on the made-up properties');
    assert.deepEqual([flags['large-companies'].value, flags['large-companies'].reason], [true, 'condition_match']);
  });

  test('nothing stored is read: a stored person and group count for nothing', async () => {
    const flags = byKey((await play({ distinct_id: 'alice', groups: { company: 'acme' } })).json());
    assert.deepEqual([flags.pro.value, flags.pro.reason], [false, 'no_condition_match']);
    assert.equal(flags['large-companies'].value, false);
    assert.equal(flags.french.value, false);
    const noGroup = byKey((await play({ distinct_id: 'alice', person_properties: { plan: 'free' } })).json());
    assert.equal(noGroup.pro.value, true);
    assert.equal(noGroup['large-companies'].reason, 'no_group_type');
  });

  test('nothing is stored: no person, event, definition or hash key written', async () => {
    const counts = async () =>
      (
        await t.db.pool.query(
          `SELECT (SELECT count(*) FROM persons) AS persons, (SELECT count(*) FROM person_distinct_ids) AS ids,
                  (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM property_definitions) AS properties,
                  (SELECT count(*) FROM feature_flag_hash_key_overrides) AS overrides`,
        )
      ).rows[0];
    const before = await counts();
    assert.equal((await play({ distinct_id: 'brand-new', person_properties: { never_seen_property: 1, plan: 'pro' } })).statusCode, 200);
    assert.deepEqual(await counts(), before);
  });

  test('flag_keys picks flags; unknown keys are listed', async () => {
    const body = (await play({ distinct_id: 'x', flag_keys: ['pro', 'nope', 'off'] })).json();
    assert.deepEqual(body.flags.map((flag: Json) => flag.key), ['off', 'pro']);
    assert.deepEqual(body.unknown_keys, ['nope']);
    assert.deepEqual((await play({ distinct_id: 'x', flag_keys: [] })).json(), { distinct_id: 'x', flags: [], unknown_keys: [] });
  });

  test('a flag changed is evaluated at once', async () => {
    const flag = await createFlag(t, { key: 'fresh', filters: { groups: [{ properties: [person('email', 'icontains', '@acme.com')], rollout_percentage: 100 }] } });
    const fresh = async (email: string) => byKey((await play({ distinct_id: 'x', person_properties: { email }, flag_keys: ['fresh'] })).json()).fresh;
    assert.equal((await fresh('a@ACME.com')).value, true);
    assert.equal((await fresh('a@other.com')).value, false);
    assert.equal(flag.key, 'fresh');
  });

  test('bad input is a 400 naming the field; 401, 403, 404, 405', async () => {
    const bad: [Json, string][] = [
      [{}, 'distinct_id'],
      [{ distinct_id: '' }, 'distinct_id'],
      [{ distinct_id: 'x'.repeat(401) }, 'distinct_id'],
      [{ distinct_id: 'x', person_properties: [1] }, 'person_properties'],
      [{ distinct_id: 'x', groups: { company: 1 } }, 'groups'],
      [{ distinct_id: 'x', group_properties: { company: 'big' } }, 'group_properties'],
      [{ distinct_id: 'x', flag_keys: 'pro' }, 'flag_keys'],
      [{ distinct_id: 'x', flag_keys: Array.from({ length: 1001 }, (_, i) => `k${i}`) }, 'flag_keys'],
    ];
    for (const [payload, attr] of bad) {
      const response = await play(payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 80));
      assert.match(String(response.json().attr), new RegExp(`^${attr}`), response.body);
    }
    assert.equal((await play({ distinct_id: 'x' }, null)).statusCode, 401);
    const surveyKey = (await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 's', scopes: ['survey:read'] } })).json().value;
    assert.equal((await play({ distinct_id: 'x' }, surveyKey)).statusCode, 403);
    const readKey = (await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'r', scopes: ['feature_flag:read'] } })).json().value;
    assert.equal((await play({ distinct_id: 'x' }, readKey)).statusCode, 200, 'reading flags is enough');
    assert.equal((await t.request({ method: 'POST', url: '/api/projects/4242/feature_flags/playground/', payload: { distinct_id: 'x' } })).statusCode, 404);
    assert.equal((await t.request({ method: 'GET', url: url() })).statusCode, 405);
  });
});
