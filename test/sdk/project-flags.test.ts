import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture, createFlag, groupIdentify, identify, startSdkApp, type Json, type SdkTestApp } from './support.ts';

let t: SdkTestApp;
let ownerDistinctId: string;
const ids: Record<string, number> = {};
const person = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'person' });

before(async () => {
  t = await startSdkApp();
  const me = await t.request({ method: 'GET', url: '/api/users/@me/' });
  ownerDistinctId = me.json().distinct_id;
  await capture(t, [
    identify('alice', { plan: 'pro' }),
    identify(ownerDistinctId, { role: 'admin' }),
    groupIdentify('company', 'acme', { size: 'large' }),
  ]);
  const flag = async (key: string, body: Json) => (ids[key] = (await createFlag(t, { key, ...body })).id);
  await flag('pro', { filters: { groups: [{ properties: [person('plan', 'exact', 'free')] }, { properties: [person('plan', 'exact', 'pro')] }] } });
  await flag('admins', { filters: { groups: [{ properties: [person('role', 'exact', 'admin')], rollout_percentage: 100 }] } });
  await flag('off', { active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('nobody', { filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
  await flag('variants', {
    filters: {
      groups: [{ properties: [], rollout_percentage: 100, variant: 'b' }],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
    },
  });
  await flag('large-companies', {
    filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'size', value: 'large', operator: 'exact', type: 'group', group_type_index: 0 }] }] },
  });
});
after(() => t.close());

const url = (action: string, query = '') => `/api/projects/${t.projectId}/feature_flags/${action}/${query}`;

describe('evaluation_reasons', () => {
  test('every live flag with its value and reason, from the stored person and groups', async () => {
    const response = await t.request({ method: 'GET', url: url('evaluation_reasons', `?distinct_id=alice&groups=${encodeURIComponent('{"company":"acme"}')}`) });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      pro: { value: true, evaluation: { reason: 'condition_match', condition_index: 1 } },
      admins: { value: false, evaluation: { reason: 'no_condition_match', condition_index: 0 } },
      off: { value: false, evaluation: { reason: 'disabled', condition_index: null } },
      nobody: { value: false, evaluation: { reason: 'out_of_rollout_bound', condition_index: 0 } },
      variants: { value: 'b', evaluation: { reason: 'condition_match', condition_index: 0 } },
      'large-companies': { value: true, evaluation: { reason: 'condition_match', condition_index: 0 } },
    });
    const noGroups = (await t.request({ method: 'GET', url: url('evaluation_reasons', '?distinct_id=alice') })).json();
    assert.deepEqual(noGroups['large-companies'], { value: false, evaluation: { reason: 'no_group_type', condition_index: null } });
  });

  test('400 without distinct_id or with groups that are not a JSON object; 401, 403, 404', async () => {
    const missing = await t.request({ method: 'GET', url: url('evaluation_reasons') });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().attr, 'distinct_id');
    for (const groups of ['{broken', '[1,2]', '"acme"']) {
      const bad = await t.request({ method: 'GET', url: url('evaluation_reasons', `?distinct_id=a&groups=${encodeURIComponent(groups)}`) });
      assert.equal(bad.statusCode, 400, groups);
      assert.equal(bad.json().attr, 'groups');
    }
    assert.equal((await t.request({ method: 'GET', url: url('evaluation_reasons', '?distinct_id=a'), key: null })).statusCode, 401);
    const surveyKey = (await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 's', scopes: ['survey:read'] } })).json().value;
    assert.equal((await t.request({ method: 'GET', url: url('evaluation_reasons', '?distinct_id=a'), key: surveyKey })).statusCode, 403);
    assert.equal((await t.request({ method: 'GET', url: '/api/projects/4242/feature_flags/evaluation_reasons/?distinct_id=a' })).statusCode, 404);
  });
});

describe('my_flags', () => {
  test("every live flag for the key owner's distinct id, newest first, with the minimal flag", async () => {
    const response = await t.request({ method: 'GET', url: url('my_flags') });
    assert.equal(response.statusCode, 200, response.body);
    const items = response.json() as Json[];
    assert.deepEqual(items.map((item) => item.feature_flag.key), ['large-companies', 'variants', 'nobody', 'off', 'admins', 'pro']);
    const value = (key: string) => items.find((item) => item.feature_flag.key === key)!.value;
    assert.equal(value('admins'), true, 'the stored properties of the owner');
    assert.equal(value('pro'), false);
    assert.equal(value('off'), false);
    assert.equal(value('variants'), 'b');
    assert.equal(value('large-companies'), false);
    const flag = items.find((item) => item.feature_flag.key === 'admins')!.feature_flag;
    assert.equal(flag.id, ids.admins);
    assert.equal(flag.team_id, t.projectId);
    assert.ok('filters' in flag && 'active' in flag && 'ensure_experience_continuity' in flag && 'version' in flag);

    const withGroups = (await t.request({ method: 'GET', url: url('my_flags', `?groups=${encodeURIComponent('{"company":"acme"}')}`) })).json() as Json[];
    assert.equal(withGroups.find((item) => item.feature_flag.key === 'large-companies')!.value, true);
  });

  test('400 for bad groups, 401 without a key, 404 for an unknown project', async () => {
    assert.equal((await t.request({ method: 'GET', url: url('my_flags', '?groups=nope') })).statusCode, 400);
    assert.equal((await t.request({ method: 'GET', url: url('my_flags'), key: null })).statusCode, 401);
    assert.equal((await t.request({ method: 'GET', url: '/api/projects/4242/feature_flags/my_flags/' })).statusCode, 404);
    const post = await t.request({ method: 'POST', url: url('my_flags'), payload: {} });
    assert.equal(post.statusCode, 405);
  });
});
