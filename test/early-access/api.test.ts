// Early access features: the management API, the public list, enrolment by event, and the flag
// following it in /flags, /decide, local evaluation definitions and OFREP.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { capture, createFlag, identify, postFlags, startSdkApp, type Json, type SdkTestApp } from '../sdk/support.ts';

let t: SdkTestApp;
before(async () => {
  t = await startSdkApp();
  await t.listen();
});
after(async () => {
  await t.close();
});

const url = (id = '') => `/api/projects/${t.projectId}/early_access_feature/${id ? `${id}/` : ''}`;
const unique = () => `Feature ${randomUUID().slice(0, 8)}`;
const slug = (name: string) => name.toLowerCase().replace(/ /g, '-');

async function create(body: Json): Promise<Json> {
  const response = await t.request({ method: 'POST', url: url(), payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}
async function patch(id: string, body: Json): Promise<Json> {
  const response = await t.request({ method: 'PATCH', url: url(id), payload: body });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}
async function flagFilters(id: number): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${id}/` });
  return response.json().filters;
}
const enrol = (distinctId: string, key: string, enrolled: boolean): Json => ({
  event: '$feature_enrollment_update',
  distinct_id: distinctId,
  properties: { $feature_flag: key, $feature_enrollment: enrolled, $set: { [`$feature_enrollment/${key}`]: enrolled } },
});

describe('management API', () => {
  test('create without a flag makes one: slug key, rollout 0 %, marked in an enrolling stage', async () => {
    const name = unique();
    const feature = await create({ name, description: 'A fancy new sprocket.', stage: 'beta' });
    assert.equal(feature.stage, 'beta');
    assert.equal(feature.documentation_url, '');
    assert.deepEqual(feature.payload, {});
    assert.equal(feature.feature_flag.key, slug(name));
    assert.equal(feature.feature_flag.name, `Feature Flag for Early Access Feature ${name}`);
    assert.deepEqual(feature.feature_flag.filters.groups, [{ properties: [], rollout_percentage: 0, variant: null }]);
    assert.equal(feature.feature_flag.filters.feature_enrollment, true);
    const listed = (await t.request({ method: 'GET', url: url() })).json();
    assert.ok(listed.results.some((item: Json) => item.id === feature.id));
    const got = await t.request({ method: 'GET', url: url(feature.id) });
    assert.equal(got.json().name, name);
  });

  test('draft is not marked; stage moves mark and unmark the flag; delete leaves the flag unmarked', async () => {
    const feature = await create({ name: unique(), stage: 'draft' });
    const flagId = feature.feature_flag.id;
    assert.equal((await flagFilters(flagId)).feature_enrollment, undefined);
    assert.equal((await patch(feature.id, { stage: 'alpha' })).feature_flag.filters.feature_enrollment, true);
    await patch(feature.id, { description: 'only words' });
    assert.equal((await flagFilters(flagId)).feature_enrollment, true);
    assert.equal((await patch(feature.id, { stage: 'concept' })).feature_flag.filters.feature_enrollment, null);
    await patch(feature.id, { stage: 'beta' });
    const ga = await patch(feature.id, { stage: 'general-availability', rollout_to_all: true });
    assert.deepEqual(ga.feature_flag.filters.groups, [{ properties: [], rollout_percentage: 100 }]);
    assert.equal(ga.feature_flag.filters.feature_enrollment, null);
    const removed = await t.request({ method: 'DELETE', url: url(feature.id) });
    assert.equal(removed.statusCode, 204);
    assert.equal((await t.request({ method: 'GET', url: url(feature.id) })).statusCode, 404);
    assert.equal((await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${flagId}/` })).statusCode, 200);
  });

  test('linking an existing flag keeps its conditions; refusals in PostHog words, nothing written', async () => {
    const flag = await createFlag(t, { key: `linked-${randomUUID().slice(0, 8)}`, filters: { groups: [{ properties: [], rollout_percentage: 30 }] } });
    const feature = await create({ name: unique(), stage: 'beta', feature_flag_id: flag.id });
    assert.equal(feature.feature_flag.filters.groups[0].rollout_percentage, 30);
    assert.equal(feature.feature_flag.filters.feature_enrollment, true);
    const post = (body: Json) => t.request({ method: 'POST', url: url(), payload: body });
    const again = await post({ name: unique(), stage: 'beta', feature_flag_id: flag.id });
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().detail, `Linked feature flag ${flag.key} already has a feature attached to it.`);
    assert.equal((await post({ name: unique(), stage: 'beta', feature_flag_id: 2147483000 })).json().detail, 'Feature Flag with this ID does not exist');
    const multi = await createFlag(t, { key: `mv-${randomUUID().slice(0, 8)}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } } });
    assert.equal((await post({ name: unique(), stage: 'beta', feature_flag_id: multi.id })).json().detail, 'Multivariate feature flags are not supported for Early Access Features.');
    const badStage = await post({ name: unique(), stage: 'gamma' });
    assert.equal(badStage.statusCode, 400);
    assert.deepEqual([badStage.json().attr, badStage.json().detail], ['stage', '"gamma" is not a valid choice.']);
    assert.equal((await post({ stage: 'beta' })).json().attr, 'name');
    assert.equal((await post({ name: unique(), stage: 'beta', documentation_url: 'not a url' })).json().attr, 'documentation_url');
    const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM early_access_features WHERE feature_flag_id = $1', [multi.id]);
    assert.equal(rows[0].n, 0);
    const clash = await post({ name: flag.key, stage: 'beta' });
    assert.equal(clash.statusCode, 400);
    assert.equal((await t.request({ method: 'GET', url: url('not-a-uuid') })).statusCode, 404);
    const flagUrl = `/api/projects/${t.projectId}/feature_flags/${flag.id}/`;
    const deleting = await t.request({ method: 'PATCH', url: flagUrl, payload: { deleted: true } });
    assert.equal(deleting.statusCode, 400);
    assert.match(deleting.json().detail, /^Cannot delete a feature flag that is in use with early access features/);
    const grouping = await t.request({ method: 'PATCH', url: flagUrl, payload: { filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 30 }] } } });
    assert.equal(grouping.statusCode, 400, grouping.body);
    assert.equal((await t.request({ method: 'GET', url: flagUrl })).json().deleted, false);
  });
});

describe('public list', () => {
  test('token + stages (default beta), CORS; missing or unknown token → 401', async () => {
    const alpha = await create({ name: unique(), stage: 'alpha', payload: { survey: 'x' } });
    const beta = await create({ name: unique(), stage: 'beta', documentation_url: 'https://example.com/docs' });
    const get = (query: string) => t.app.inject({ method: 'GET', url: `/api/early_access_features/?${query}`, headers: { origin: 'https://shop.example' } });
    const byDefault = await get(`token=${t.token}`);
    assert.equal(byDefault.statusCode, 200);
    assert.equal(byDefault.headers['access-control-allow-origin'], 'https://shop.example');
    const items: Json[] = byDefault.json().earlyAccessFeatures;
    assert.ok(items.every((item) => item.stage === 'beta'));
    const item = items.find((i) => i.id === beta.id);
    assert.deepEqual(item, { id: beta.id, name: beta.name, description: '', stage: 'beta', documentationUrl: 'https://example.com/docs', flagKey: beta.feature_flag.key, payload: {}, assignee: null });
    const both: Json[] = (await get(`token=${t.token}&stage=alpha&stage=beta`)).json().earlyAccessFeatures;
    assert.ok(both.some((i) => i.id === alpha.id && i.payload.survey === 'x') && both.some((i) => i.id === beta.id));
    assert.equal((await get('')).statusCode, 401);
    assert.equal((await get('token=phc_unknown')).statusCode, 401);
  });
});

describe('enrolment', () => {
  test('opt-in serves the flag, opt-out refuses it at once, no property → normal rules; /flags, /decide, OFREP, posthog-node local', async () => {
    const flag = await createFlag(t, { key: `eaf-${randomUUID().slice(0, 8)}`, filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 100 }] } });
    await create({ name: unique(), stage: 'beta', feature_flag_id: flag.id });
    await capture(t, [identify('in', { plan: 'free' }), identify('out', { plan: 'pro' }), identify('neither', { plan: 'pro' }), identify('nobody', { plan: 'free' })]);
    await capture(t, [enrol('in', flag.key, true), enrol('out', flag.key, false)]);
    const { rows } = await t.db.pool.query<{ v: unknown }>(
      `SELECT p.properties -> $2 AS v FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id WHERE d.project_id = $1 AND d.distinct_id = 'in'`,
      [t.projectId, `$feature_enrollment/${flag.key}`],
    );
    assert.equal(rows[0].v, true);

    const expected: Record<string, boolean> = { in: true, out: false, neither: true, nobody: false };
    for (const [who, value] of Object.entries(expected)) {
      const flags = (await postFlags(t, { distinct_id: who })).json();
      assert.equal(flags.flags[flag.key].enabled, value, `/flags ${who}`);
      if (who === 'in' || who === 'out') assert.equal(flags.flags[flag.key].reason.code, 'super_condition_value');
      const decide = (await postFlags(t, { distinct_id: who }, 'v=3', '/decide/')).json();
      assert.equal(decide.featureFlags[flag.key], value, `/decide ${who}`);
      const ofrep = await t.app.inject({
        method: 'POST',
        url: `/ofrep/v1/evaluate/flags/${flag.key}`,
        headers: { authorization: `Bearer ${t.token}` },
        payload: { context: { targetingKey: who } },
      });
      assert.equal(ofrep.json().value, value, `OFREP ${who}`);
    }
    // The request's person properties win over the stored ones (posthog-js sends its own opt-in).
    const override = (await postFlags(t, { distinct_id: 'out', person_properties: { [`$feature_enrollment/${flag.key}`]: true } })).json();
    assert.equal(override.flags[flag.key].enabled, true);

    const client = new PostHog(t.token, { host: t.url, personalApiKey: t.secret, featureFlagsPollingInterval: 60_000, flushAt: 1 });
    try {
      await client.reloadFeatureFlags();
      const local = (props: Json) => client.getFeatureFlag(flag.key, 'someone', { personProperties: props, onlyEvaluateLocally: true });
      assert.equal(await local({ plan: 'pro', [`$feature_enrollment/${flag.key}`]: false }), false);
      assert.equal(await local({ plan: 'free', [`$feature_enrollment/${flag.key}`]: true }), true);
      // Without the property the SDK cannot rule out an opt-out: it leaves the decision to the server.
      assert.equal(await local({ plan: 'pro' }), undefined);
      assert.equal(await client.getFeatureFlag(flag.key, 'neither', { personProperties: { plan: 'pro' } }), true);
      assert.equal(await client.getFeatureFlag(flag.key, 'out'), false);
    } finally {
      await client.shutdown();
    }
  });
});
