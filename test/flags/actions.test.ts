import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { evaluateFlag, flagHash, type EvaluationFlag } from '../../src/evaluation/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertError, cohortsUrl, createCohort, filtersOf, and, insertPerson, keyWith, otherProject, person, type Json } from '../cohorts/support.ts';
import { createFlag, flagsUrl, patchFlag } from './flag-client.ts';

let t: TestApp;
let readKey: string;
let writeKey: string;
let otherProjectId: number;
const persons: Array<{ id: number; uuid: string; distinctId: string; properties: Json }> = [];

before(async () => {
  t = await startTestApp();
  readKey = await keyWith(t, ['feature_flag:read']);
  writeKey = await keyWith(t, ['feature_flag:write']);
  otherProjectId = await otherProject(t);
  for (let i = 0; i < 40; i++) {
    const properties: Json = { plan: i % 2 === 0 ? 'pro' : 'free', n: i };
    if (i % 5 === 0) properties.email = `user${i}@corp.io`;
    const distinctId = `user-${i}`;
    const row = await insertPerson(t, [distinctId, `alias-${i}`], properties);
    persons.push({ ...row, distinctId, properties });
  }
  // A person with no distinct id cannot be hashed: never in a static cohort made from a flag.
  await insertPerson(t, [], { plan: 'pro' });
});
after(async () => {
  await t.close();
});

const url = (path: string, projectId: number = t.projectId) => `${flagsUrl(projectId)}${path}`;
const post = (path: string, payload: unknown = {}, key?: string | null, projectId?: number) =>
  t.request({ method: 'POST', url: url(path, projectId), payload: payload as Json, key });
const get = (path: string, key?: string | null, projectId?: number) => t.request({ method: 'GET', url: url(path, projectId), key });

/** The engine's answer for one stored person, as the endpoint must have computed it. */
function engineSays(flag: Json, p: { distinctId: string; properties: Json }, overrides?: Record<string, string>): boolean {
  const evaluationFlag: EvaluationFlag = {
    id: flag.id,
    key: flag.key,
    active: flag.active,
    deleted: false,
    version: flag.version,
    filters: flag.filters,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    bucketing_identifier: flag.bucketing_identifier,
    evaluation_runtime: 'all',
  };
  return evaluateFlag(evaluationFlag, {
    distinctId: p.distinctId,
    personProperties: p.properties,
    groups: {},
    groupProperties: {},
    groupTypeMapping: {},
    cohorts: new Map(),
    hashKeyOverrides: overrides,
  }).enabled;
}

async function cohortMemberUuids(cohortId: number): Promise<string[]> {
  const response = await t.request({ method: 'GET', url: `${cohortsUrl()}${cohortId}/persons/?limit=1000` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().results.map((p: Json) => p.uuid).sort();
}

describe('create_static_cohort_for_flag', () => {
  test('answers 200 with a static cohort of exactly the persons the engine turns the flag on for', async () => {
    const flag = await createFlag(t, {
      key: 'half-of-pro',
      filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }], rollout_percentage: 50 }] },
    });
    const response = await post(`${flag.id}/create_static_cohort_for_flag/`);
    assert.equal(response.statusCode, 200, response.body);
    const { cohort } = response.json();
    assert.match(cohort.name, /^Users with feature flag half-of-pro enabled at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    assert.equal(cohort.is_static, true);
    assert.equal(cohort.is_calculating, false);
    const expected = persons.filter((p) => engineSays(flag, p)).map((p) => p.uuid).sort();
    assert.ok(expected.length > 3 && expected.length < 20, `a real rollout split (${expected.length})`);
    assert.equal(cohort.count, expected.length);
    assert.deepEqual(await cohortMemberUuids(cohort.id), expected);
    const activity = (await t.request({ method: 'GET', url: `${cohortsUrl()}${cohort.id}/activity/` })).json().results;
    assert.deepEqual(activity.map((e: Json) => e.activity), ['created']);
  });

  test('experience continuity: a stored hash-key override decides the bucket', async () => {
    const flag = await createFlag(t, {
      key: 'sticky',
      ensure_experience_continuity: true,
      filters: { groups: [{ properties: [], rollout_percentage: 30 }] },
    });
    // A person out of the rollout by their distinct id, with an override hash key that is in it.
    const out = persons.find((p) => flagHash('sticky', p.distinctId) > 0.3)!;
    let inKey = '';
    for (let i = 0; !inKey; i++) if (flagHash('sticky', `anon-${i}`) <= 0.3) inKey = `anon-${i}`;
    await t.db.pool.query(
      'INSERT INTO feature_flag_hash_key_overrides (project_id, person_id, feature_flag_key, hash_key) VALUES ($1, $2, $3, $4)',
      [t.projectId, out.id, 'sticky', inKey],
    );
    const { cohort } = (await post(`${flag.id}/create_static_cohort_for_flag/`)).json();
    const members = await cohortMemberUuids(cohort.id);
    assert.ok(members.includes(out.uuid));
    const expected = persons.filter((p) => engineSays(flag, p, p.id === out.id ? { sticky: inKey } : undefined)).map((p) => p.uuid).sort();
    assert.deepEqual(members, expected);
  });

  test('cohort conditions and flag dependencies are evaluated by the same engine', async () => {
    const corp = await createCohort(t, { name: 'corp', filters: filtersOf(and(person('email', 'corp.io', 'icontains'))) });
    const base = await createFlag(t, { key: 'base-pro', filters: { groups: [{ properties: [person('plan', 'pro')], rollout_percentage: 100 }] } });
    const flag = await createFlag(t, {
      key: 'corp-and-pro',
      filters: {
        groups: [{
          properties: [
            { type: 'cohort', key: 'id', value: corp.id },
            { type: 'flag', key: String(base.id), value: true, operator: 'flag_evaluates_to' },
          ],
          rollout_percentage: 100,
        }],
      },
    });
    const { cohort } = (await post(`${flag.id}/create_static_cohort_for_flag/`)).json();
    const expected = persons.filter((p) => p.properties.plan === 'pro' && String(p.properties.email ?? '').includes('corp.io')).map((p) => p.uuid).sort();
    assert.ok(expected.length > 0);
    assert.deepEqual(await cohortMemberUuids(cohort.id), expected);
  });

  test('a disabled flag gives an empty cohort; deleted and group flags are refused', async () => {
    const disabled = await createFlag(t, { key: 'off', active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    const { cohort } = (await post(`${disabled.id}/create_static_cohort_for_flag/`)).json();
    assert.equal(cohort.count, 0);

    const deleted = await createFlag(t, { key: 'deleted-one', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    await patchFlag(t, deleted.id, { deleted: true });
    assertError(await post(`${deleted.id}/create_static_cohort_for_flag/`), 400, { type: 'validation_error' });

    const group = await createFlag(t, { key: 'per-company', filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 100 }] } });
    assertError(await post(`${group.id}/create_static_cohort_for_flag/`), 400, {
      detail: 'This flag targets groups, not persons: a static cohort cannot be made from it.',
    });
  });

  test('404 for unknown ids and flags of another project; scopes', async () => {
    const foreign = (await t.request({ method: 'POST', url: flagsUrl(otherProjectId), payload: { key: 'foreign' } })).json();
    assertError(await post('999999/create_static_cohort_for_flag/'), 404, { code: 'not_found' });
    assertError(await post('abc/create_static_cohort_for_flag/'), 404, { code: 'not_found' });
    assertError(await post(`${foreign.id}/create_static_cohort_for_flag/`), 404, { code: 'not_found' });
    const flag = await createFlag(t, { key: 'scoped-cohort' });
    assertError(await post(`${flag.id}/create_static_cohort_for_flag/`, {}, null), 401, { code: 'not_authenticated' });
    assertError(await post(`${flag.id}/create_static_cohort_for_flag/`, {}, readKey), 403, {
      detail: "API key missing required scope 'feature_flag:write'",
    });
    assert.equal((await post(`${flag.id}/create_static_cohort_for_flag/`, {}, writeKey)).statusCode, 200);
    assertError(await post(`${flag.id}/create_static_cohort_for_flag/`, { key: 5 }), 400, { attr: 'key' });
    assert.equal((await t.request({ method: 'GET', url: url(`${flag.id}/create_static_cohort_for_flag/`) })).statusCode, 405);
  });
});

describe('has_active_dependents', () => {
  test('lists active, live flags that depend on the flag, by key', async () => {
    const base = await createFlag(t, { key: 'dep-base' });
    const dependency = (key: string, extra: Json = {}) =>
      createFlag(t, { key, ...extra, filters: { groups: [{ properties: [{ type: 'flag', key: String(base.id), value: true, operator: 'flag_evaluates_to' }], rollout_percentage: 100 }] } });
    const zeta = await dependency('dep-zeta', { name: 'Zeta' });
    await dependency('dep-alpha');
    const off = await dependency('dep-off');
    await patchFlag(t, off.id, { active: false });
    const gone = await dependency('dep-gone');
    await patchFlag(t, gone.id, { deleted: true });

    const response = await post(`${base.id}/has_active_dependents/`, undefined, readKey);
    assert.equal(response.statusCode, 200, response.body);
    const alpha = response.json().dependent_flags[0];
    assert.deepEqual(response.json(), {
      has_active_dependents: true,
      dependent_flags: [
        { id: alpha.id, key: 'dep-alpha', name: 'dep-alpha' },
        { id: zeta.id, key: 'dep-zeta', name: 'Zeta' },
      ],
    });
    const lonely = await createFlag(t, { key: 'dep-lonely' });
    assert.deepEqual((await post(`${lonely.id}/has_active_dependents/`)).json(), { has_active_dependents: false, dependent_flags: [] });
    assertError(await post('999999/has_active_dependents/'), 404, { code: 'not_found' });
    assertError(await post(`${lonely.id}/has_active_dependents/`, {}, null), 401, {});
    const noFlags = await keyWith(t, ['cohort:read']);
    assertError(await post(`${lonely.id}/has_active_dependents/`, {}, noFlags), 403, { detail: "API key missing required scope 'feature_flag:read'" });
  });
});

describe('remote_config', () => {
  test('answers the stored payloads["true"], by id or by key', async () => {
    const payload = JSON.stringify({ theme: 'dark', limits: [1, 2] });
    const flag = await createFlag(t, {
      key: 'remote-theme',
      is_remote_configuration: true,
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: payload } },
    });
    for (const id of [String(flag.id), 'remote-theme']) {
      const response = await get(`${id}/remote_config/`, readKey);
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /application\/json/);
      assert.equal(response.json(), payload);
    }
    const empty = await createFlag(t, { key: 'remote-empty', is_remote_configuration: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    const none = await get(`${empty.id}/remote_config/`);
    assert.equal(none.statusCode, 200);
    assert.equal(none.body, 'null');
  });

  test('404 when the flag is not a remote configuration, unknown, deleted or in another project', async () => {
    const plain = await createFlag(t, { key: 'not-remote', filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '1' } } });
    const deleted = await createFlag(t, { key: 'remote-deleted', is_remote_configuration: true, filters: { groups: [{ properties: [] }], payloads: { true: '1' } } });
    await patchFlag(t, deleted.id, { deleted: true });
    const foreign = (await t.request({ method: 'POST', url: flagsUrl(otherProjectId), payload: { key: 'remote-foreign', is_remote_configuration: true } })).json();
    for (const id of [String(plain.id), 'not-remote', '999999', 'no-such-key', String(deleted.id), 'remote-deleted', String(foreign.id), 'remote-foreign']) {
      assertError(await get(`${id}/remote_config/`), 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    }
    assertError(await get(`${plain.id}/remote_config/`, null), 401, {});
    assertError(await get(`${plain.id}/remote_config/`, await keyWith(t, ['cohort:read'])), 403, {});
  });
});

describe('status', () => {
  test('answers {status, reason} in lower case; deleted flags say deleted; unknown ids are 404', async () => {
    const active = await createFlag(t, { key: 'status-active', filters: { groups: [{ properties: [], rollout_percentage: 40 }] } });
    assert.deepEqual((await get(`${active.id}/status/`, readKey)).json(), { status: 'active', reason: 'Flag is active and being evaluated' });
    const old = await createFlag(t, {
      key: 'status-stale',
      created_at: '2020-01-01T00:00:00Z',
      last_called_at: new Date().toISOString(),
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    });
    assert.deepEqual((await get(`${old.id}/status/`)).json(), { status: 'stale', reason: 'This boolean flag will always evaluate to "true"' });
    const never = await createFlag(t, { key: 'status-inactive', created_at: '2020-01-01T00:00:00Z' });
    assert.equal((await get(`${never.id}/status/`)).json().status, 'inactive');
    await patchFlag(t, active.id, { deleted: true });
    assert.deepEqual((await get(`${active.id}/status/`)).json(), { status: 'deleted', reason: 'Flag has been deleted' });
    const foreign = (await t.request({ method: 'POST', url: flagsUrl(otherProjectId), payload: { key: 'status-foreign' } })).json();
    for (const id of ['999999', 'abc', String(foreign.id)]) assertError(await get(`${id}/status/`), 404, { code: 'not_found' });
    assertError(await get(`${never.id}/status/`, null), 401, {});
    assertError(await get(`${never.id}/status/`, await keyWith(t, ['survey:read'])), 403, {});
  });
});

describe('bulk_keys', () => {
  test('maps ids (integers and digit strings) to keys of live flags in the project', async () => {
    const a = await createFlag(t, { key: 'bulk-a' });
    const b = await createFlag(t, { key: 'bulk-b' });
    const gone = await createFlag(t, { key: 'bulk-gone' });
    await patchFlag(t, gone.id, { deleted: true });
    const foreign = (await t.request({ method: 'POST', url: flagsUrl(otherProjectId), payload: { key: 'bulk-foreign' } })).json();
    const response = await post('bulk_keys/', { ids: [a.id, String(b.id), gone.id, foreign.id, 999999, -3] }, readKey);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { keys: { [String(a.id)]: 'bulk-a', [String(b.id)]: 'bulk-b' } });
  });

  test('invalid ids are ignored with a warning; `true` is not id 1; all invalid is 400 {"error"}', async () => {
    const a = await createFlag(t, { key: 'bulk-warned' });
    const response = await post('bulk_keys/', { ids: [a.id, 'abc', true, null, 1.5, '-2', { x: 1 }] });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      keys: { [String(a.id)]: 'bulk-warned' },
      warning: "Invalid flag IDs ignored: ['abc', True, None, 1.5, '-2', {'x': 1}]",
    });
    const allBad = await post('bulk_keys/', { ids: [true, 'x'] });
    assert.equal(allBad.statusCode, 400);
    assert.deepEqual(allBad.json(), { error: 'Invalid flag IDs provided' });
    assert.deepEqual((await post('bulk_keys/', { ids: [] })).json(), { keys: {} });
    assert.deepEqual((await post('bulk_keys/', {})).json(), { keys: {} });
    assertError(await post('bulk_keys/', { ids: '1,2' }), 400, { type: 'validation_error', attr: 'ids' });
    assertError(await post('bulk_keys/', { ids: [1] }, null), 401, {});
    assertError(await post('bulk_keys/', { ids: [1] }, await keyWith(t, ['cohort:write'])), 403, { detail: "API key missing required scope 'feature_flag:read'" });
    assert.equal((await get('bulk_keys/')).statusCode, 405);
  });
});

describe('user_blast_radius', () => {
  test('counts the persons a condition matches over all persons; the rollout is not applied', async () => {
    const total = persons.length + 1;
    const pro = await post('user_blast_radius/', { condition: { properties: [person('plan', 'pro')], rollout_percentage: 10 }, group_type_index: null }, readKey);
    assert.equal(pro.statusCode, 200, pro.body);
    assert.deepEqual(pro.json(), { users_affected: 21, total_users: total });
    const everyone = await post('user_blast_radius/', { condition: { properties: [] } });
    assert.deepEqual(everyone.json(), { users_affected: total, total_users: total });
    const numeric = await post('user_blast_radius/', { condition: { properties: [person('n', '30', 'gte'), person('email', 'corp.io', 'icontains')] } });
    assert.deepEqual(numeric.json(), { users_affected: 2, total_users: total });
  });

  test('cohort conditions count with the cohort’s criteria', async () => {
    const corp = await createCohort(t, { name: 'corp blast', filters: filtersOf(and(person('email', 'corp.io', 'icontains'))) });
    const response = await post('user_blast_radius/', { condition: { properties: [{ type: 'cohort', key: 'id', value: corp.id }] } });
    assert.deepEqual(response.json(), { users_affected: 8, total_users: persons.length + 1 });
    const negated = await post('user_blast_radius/', { condition: { properties: [{ type: 'cohort', key: 'id', value: corp.id, operator: 'not_in' }] } });
    assert.equal(negated.json().users_affected, persons.length + 1 - 8);
  });

  test('groups: counts groups of the type when group_type_index is set', async () => {
    await t.db.pool.query(
      `INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES ($1, 'company', 0);
       INSERT INTO groups (project_id, group_type_index, group_key, group_properties) VALUES
         ($1, 0, 'acme', '{"size": 120}'), ($1, 0, 'globex', '{"size": 12}'), ($1, 0, 'initech', '{"size": 300}')`.replace(/\$1/g, String(t.projectId)),
    );
    const big = await post('user_blast_radius/', {
      condition: { properties: [{ type: 'group', group_type_index: 0, key: 'size', value: '100', operator: 'gt' }] },
      group_type_index: 0,
    });
    assert.equal(big.statusCode, 200, big.body);
    assert.deepEqual(big.json(), { users_affected: 2, total_users: 3 });
    assert.deepEqual((await post('user_blast_radius/', { condition: { properties: [] }, group_type_index: 1 })).json(), { users_affected: 0, total_users: 0 });
  });

  test('bad input is 400', async () => {
    assertError(await post('user_blast_radius/', {}), 400, { detail: 'Missing condition for which to get blast radius', attr: null });
    assertError(await post('user_blast_radius/', { condition: null }), 400, { detail: 'Missing condition for which to get blast radius' });
    assertError(await post('user_blast_radius/', { condition: [1] }), 400, { attr: 'condition' });
    assertError(
      await post('user_blast_radius/', { condition: { properties: [{ type: 'group', group_type_index: 1, key: 'size', value: '1', operator: 'gt' }] }, group_type_index: 0 }),
      400,
      { detail: 'Invalid group type index for feature flag condition.' },
    );
    assertError(await post('user_blast_radius/', { condition: { properties: [person('plan', 'pro', 'sounds_like')] } }), 400, {
      code: 'invalid_operator',
      attr: 'condition',
    });
    assertError(await post('user_blast_radius/', { condition: { properties: [{ type: 'cohort', key: 'id', value: 987654 }] } }), 400, {
      code: 'cohort_does_not_exist',
      attr: 'condition',
    });
    assertError(await post('user_blast_radius/', { condition: { properties: [person('plan', 'pro')] }, group_type_index: 0 }), 400, {
      detail: 'Filters are not valid (can only use group properties)',
    });
    assertError(await post('user_blast_radius/', { condition: { properties: [] }, group_type_index: 9 }), 400, { attr: 'group_type_index' });
    assertError(await post('user_blast_radius/', { condition: { properties: [] }, group_type_index: '0' }), 400, { attr: 'group_type_index' });
    assertError(await post('user_blast_radius/', { condition: { properties: 'plan' } }), 400, { attr: 'condition' });
    assertError(await post('user_blast_radius/', { condition: { properties: [] } }, null), 401, {});
    assertError(await post('user_blast_radius/', { condition: { properties: [] } }, await keyWith(t, ['dashboard:read'])), 403, {});
  });
});
