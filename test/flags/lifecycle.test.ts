// PostHog's flag lifecycle actions (enable, disable, archive, unarchive), dependent_flags, the
// list's key and archived filters, and test_evaluation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { keyWith, otherProject } from '../helpers/api.ts';
import { capture, createFlag, identify, startSdkApp, type Json, type SdkTestApp } from '../sdk/support.ts';
import { assertValidation } from './flag-client.ts';

let t: SdkTestApp;
before(async () => {
  t = await startSdkApp();
});
after(() => t.close());

const url = (suffix = '') => `/api/projects/${t.projectId}/feature_flags/${suffix}`;
const post = (suffix: string, key?: string) => t.request({ method: 'POST', url: url(suffix), key });
const get = async (id: number): Promise<Json> => (await t.request({ method: 'GET', url: url(`${id}/`) })).json();
const activity = async (id: number) =>
  (await t.db.pool.query("SELECT activity, detail FROM activity_log WHERE scope = 'FeatureFlag' AND item_id = $1 ORDER BY created_at", [String(id)])).rows;

describe('enable, disable, archive, unarchive', () => {
  test('each changes only active/archived, writes one activity entry, and is a no-op when already there', async () => {
    const flag = await createFlag(t, { key: 'life', name: 'Life', filters: { groups: [{ properties: [], rollout_percentage: 40 }] }, tags: ['a'] });

    const disabled = await post(`${flag.id}/disable/`);
    assert.equal(disabled.statusCode, 200, disabled.body);
    assert.equal(disabled.json().active, false);
    assert.equal(disabled.json().version, 2);
    assert.deepEqual(disabled.json().filters, flag.filters);
    assert.deepEqual(disabled.json().tags, ['a']);
    const again = await post(`${flag.id}/disable/`);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().version, 2, 'no write when already disabled');

    const enabled = await post(`${flag.id}/enable`);
    assert.equal(enabled.json().active, true);
    assert.equal(enabled.json().version, 3);

    const archived = await post(`${flag.id}/archive/`);
    assert.equal(archived.statusCode, 200, archived.body);
    assert.equal(archived.json().archived, true);
    assert.equal(archived.json().active, false, 'archiving an enabled flag disables it in the same write');
    assert.equal(archived.json().version, 4);

    assertValidation(await post(`${flag.id}/enable/`), 'Cannot enable an archived feature flag. Unarchive it first.', 'active');
    const patchOn = await t.request({ method: 'PATCH', url: url(`${flag.id}/`), payload: { active: true } });
    assertValidation(patchOn, 'Cannot enable an archived feature flag. Unarchive it first.', 'active');

    const unarchived = await post(`${flag.id}/unarchive/`);
    assert.equal(unarchived.json().archived, false);
    assert.equal(unarchived.json().active, false, 'it stays disabled');
    assert.equal((await post(`${flag.id}/unarchive/`)).json().version, unarchived.json().version);

    const entries = await activity(flag.id);
    assert.deepEqual(entries.map((e) => e.activity), ['created', 'updated', 'updated', 'updated', 'updated']);
    const archiveChanges = entries[3].detail.changes.map((c: Json) => c.field).sort();
    assert.deepEqual(archiveChanges, ['active', 'archived', 'version']);
  });

  test('archived flags leave the default list; ?archived=true lists only them; PATCH archived needs active false', async () => {
    const kept = await createFlag(t, { key: 'kept-listed' });
    const gone = await createFlag(t, { key: 'archived-one' });
    assert.equal((await post(`${gone.id}/archive/`)).statusCode, 200);
    const keys = async (query: string) => ((await t.request({ method: 'GET', url: url(query) })).json().results as Json[]).map((f) => f.key);
    assert.ok((await keys('')).includes('kept-listed'));
    assert.ok(!(await keys('')).includes('archived-one'));
    assert.deepEqual(await keys('?archived=true'), ['archived-one']);
    assert.ok(!(await keys('?archived=false')).includes('archived-one'));

    const bad = await t.request({ method: 'PATCH', url: url(`${kept.id}/`), payload: { archived: true } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().attr, 'archived');
    const ok = await t.request({ method: 'PATCH', url: url(`${kept.id}/`), payload: { archived: true, active: false } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal((await get(kept.id)).archived, true);
  });

  test('dependents block disable and archive; a disabled dependency blocks enable', async () => {
    const base = await createFlag(t, { key: 'base' });
    const child = await createFlag(t, { key: 'child', filters: { groups: [{ properties: [{ key: String(base.id), type: 'flag', value: true, operator: 'flag_evaluates_to' }], rollout_percentage: 100 }] } });
    for (const action of ['disable', 'archive']) {
      const refused = await post(`${base.id}/${action}/`);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.match(refused.json().detail, /other flags depend on it: child/);
    }
    assert.equal((await get(base.id)).active, true);
    assert.equal((await get(base.id)).archived, false);

    const dependents = await t.request({ method: 'GET', url: url(`${base.id}/dependent_flags/`) });
    assert.equal(dependents.statusCode, 200);
    assert.deepEqual(dependents.json(), [{ id: child.id, key: 'child', name: 'child' }]);
    assert.deepEqual((await t.request({ method: 'GET', url: url(`${child.id}/dependent_flags`) })).json(), []);

    assert.equal((await post(`${child.id}/disable/`)).statusCode, 200);
    assert.equal((await post(`${base.id}/disable/`)).statusCode, 200);
    const enableChild = await post(`${child.id}/enable/`);
    assert.equal(enableChild.statusCode, 400);
    assert.match(enableChild.json().detail, /depends on disabled flags: base/);
  });

  test('deleted flags are refused; scopes, other projects and methods', async () => {
    const flag = await createFlag(t, { key: 'to-delete' });
    await t.request({ method: 'PATCH', url: url(`${flag.id}/`), payload: { deleted: true } });
    assertValidation(await post(`${flag.id}/enable/`), 'This feature flag has been deleted. Restore it before enabling it.', null);

    const reader = await keyWith(t, ['feature_flag:read']);
    const live = await createFlag(t, { key: 'scoped' });
    const refused = await post(`${live.id}/disable/`, reader);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().detail, "API key missing required scope 'feature_flag:write'");
    assert.equal((await t.request({ method: 'GET', url: url(`${live.id}/dependent_flags/`), key: reader })).statusCode, 200);
    assert.equal((await post(`${live.id}/disable/`)).statusCode, 200, 'the * key');

    const other = await otherProject(t);
    const elsewhere = await t.request({ method: 'POST', url: `/api/projects/${other}/feature_flags/${live.id}/archive/` });
    assert.equal(elsewhere.statusCode, 404);
    assert.equal((await post('999999/enable/')).statusCode, 404);
    assert.equal((await post('abc/enable/')).statusCode, 404);
    const wrongMethod = await t.request({ method: 'GET', url: url(`${live.id}/enable/`) });
    assert.equal(wrongMethod.statusCode, 405);
    assert.equal((await t.request({ method: 'POST', url: url(`${live.id}/dependent_flags/`) })).statusCode, 405);
  });
});

describe('the list by key', () => {
  test('?key= matches one key exactly, in any case', async () => {
    await createFlag(t, { key: 'checkout-v2' });
    await createFlag(t, { key: 'checkout-v2-beta' });
    const found = await t.request({ method: 'GET', url: url('?key=CHECKOUT-v2') });
    assert.deepEqual(found.json().results.map((f: Json) => f.key), ['checkout-v2']);
    assert.equal(found.json().count, 1);
    assert.equal((await t.request({ method: 'GET', url: url('?key=nope') })).json().count, 0);
  });
});

describe('test_evaluation', () => {
  test('evaluates one flag for a distinct id with stored properties; only the properties it reads are shown', async () => {
    await capture(t, [identify('ada', { plan: 'pro', email: 'ada@example.com' })]);
    const flag = await createFlag(t, {
      key: 'pro-only',
      filters: { groups: [{ properties: [{ key: 'plan', type: 'person', value: ['pro'], operator: 'exact' }], rollout_percentage: 100 }], payloads: { true: '{"x":1}' } },
    });
    const response = await t.request({ method: 'POST', url: url(`${flag.id}/test_evaluation/`), payload: { distinct_id: 'ada' } });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      flag_key: 'pro-only',
      result: true,
      reason: 'condition_match',
      reason_description: response.json().reason_description,
      condition_index: 0,
      payload: { x: 1 },
      person_properties: { plan: 'pro' },
      evaluation_distinct_id: 'ada',
      conditions: [],
    });
    const stranger = await t.request({ method: 'POST', url: url(`${flag.id}/test_evaluation/`), payload: { distinct_id: 'nobody' } });
    assert.equal(stranger.json().result, false);
    assert.equal(stranger.json().reason, 'no_condition_match');

    const person = (await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/persons/?distinct_id=ada` })).json().results[0];
    const byPerson = await t.request({ method: 'POST', url: url(`${flag.id}/test_evaluation/`), payload: { person_id: person.uuid } });
    assert.equal(byPerson.json().result, true);
    assert.equal(byPerson.json().evaluation_distinct_id, null, 'the person path does not reveal distinct ids');
  });

  test('bad input: neither or both ids, a timestamp, an unknown person, an unknown flag', async () => {
    const flag = await createFlag(t, { key: 'te-errors' });
    const call = (payload: Json, id: number | string = flag.id) => t.request({ method: 'POST', url: url(`${id}/test_evaluation/`), payload });
    assertValidation(await call({}), 'Either distinct_id or person_id must be provided', null);
    assertValidation(await call({ distinct_id: 'a', person_id: 'b' }), 'Cannot provide both distinct_id and person_id', null);
    assert.equal((await call({ distinct_id: 'a', timestamp: '2026-01-01T00:00:00Z' })).json().attr, 'timestamp');
    assert.equal((await call({ person_id: '00000000-0000-4000-8000-000000000000' })).statusCode, 404);
    assert.equal((await call({ distinct_id: 'a' }, 999999)).statusCode, 404);
    assert.equal((await call({ distinct_id: 'a', groups: { company: 5 } })).statusCode, 400);
  });
});
