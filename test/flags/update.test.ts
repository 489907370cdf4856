import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertValidation, createFlag, getFlag, patchFlag, type Json } from './flag-client.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const dependsOn = (id: unknown, value: unknown = true) => ({
  groups: [{ properties: [{ key: String(id), type: 'flag', value, operator: 'flag_evaluates_to' }], rollout_percentage: 100 }],
});

describe('update', () => {
  test('every successful PATCH adds one to version, even a no-op; a body version is ignored', async () => {
    const flag = await createFlag(t, { key: 'versioned' });
    const first = await patchFlag(t, flag.id, { name: 'renamed', version: 99 });
    assert.equal(first.statusCode, 200);
    assert.equal(first.json().version, 2);
    assert.equal(first.headers.etag, '"2"');
    const noop = await patchFlag(t, flag.id, {});
    assert.equal(noop.json().version, 3);
    assert.equal(noop.json().name, 'renamed');
  });

  test('a stale If-Match is a 409 naming who changed it, and changes nothing', async () => {
    const flag = await createFlag(t, { key: 'contended' });
    assert.equal((await patchFlag(t, flag.id, { name: 'theirs' }, { 'if-match': '"1"' })).statusCode, 200);
    const stale = await patchFlag(t, flag.id, { name: 'mine' }, { 'if-match': '"1"' });
    assert.equal(stale.statusCode, 409);
    assert.deepEqual(stale.json(), {
      type: 'server_error',
      code: 'conflict',
      detail: 'The feature flag was updated by admin@bellwether.local since you started editing it. Please refresh and try again.',
      attr: null,
    });
    const read = await getFlag(t, flag.id);
    assert.equal(read.json().name, 'theirs');
    assert.equal(read.json().version, 2);
    const weak = await patchFlag(t, flag.id, { name: 'mine' }, { 'if-match': 'W/"2"' });
    assert.equal(weak.statusCode, 200);
    assert.equal(weak.json().version, 3);
  });

  test('an If-Match that is not a version is a 400', async () => {
    const flag = await createFlag(t, { key: 'bad-if-match' });
    const response = await patchFlag(t, flag.id, { name: 'x' }, { 'if-match': 'tomorrow' });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().type, 'validation_error');
  });

  test('body version with original_flag conflicts only when both sides changed the same field', async () => {
    const flag = await createFlag(t, { key: 'orig', name: 'v1' });
    await patchFlag(t, flag.id, { name: 'someone else' });
    const clash = await patchFlag(t, flag.id, { name: 'mine', version: 1, original_flag: { ...flag } });
    assert.equal(clash.statusCode, 409);
    assert.equal(clash.json().code, 'conflict');
    const disjoint = await patchFlag(t, flag.id, { active: false, version: 1, original_flag: { ...flag } });
    assert.equal(disjoint.statusCode, 200);
    assert.equal(disjoint.json().name, 'someone else');
  });

  test('PATCH of filters without groups keeps the stored filters', async () => {
    const filters = { groups: [{ properties: [], rollout_percentage: 40 }] };
    const flag = await createFlag(t, { key: 'keep-filters', filters });
    const response = await patchFlag(t, flag.id, { filters: { payloads: { true: '1' } } });
    assert.equal(response.statusCode, 200);
    assert.deepEqual((response.json().filters as Json).groups, filters.groups);
  });

  test('PATCH may set groups to an empty list', async () => {
    const flag = await createFlag(t, { key: 'emptied', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    const response = await patchFlag(t, flag.id, { filters: { groups: [] } });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual((response.json().filters as Json).groups, []);
  });

  test('renaming to a live key is refused; to a soft-deleted flag’s key is allowed', async () => {
    const a = await createFlag(t, { key: 'rename-a' });
    const b = await createFlag(t, { key: 'rename-b' });
    assertValidation(await patchFlag(t, b.id, { key: 'rename-a' }), 'There is already a feature flag with this key.', 'key', 'unique');
    await patchFlag(t, a.id, { deleted: true });
    const renamed = await patchFlag(t, b.id, { key: 'rename-a' });
    assert.equal(renamed.statusCode, 200);
    assert.equal(renamed.json().key, 'rename-a');
  });

  test('turning a flag on resets performed_rollback', async () => {
    const flag = await createFlag(t, { key: 'rolled-back', active: false, performed_rollback: true });
    assert.equal(flag.performed_rollback, true);
    const on = await patchFlag(t, flag.id, { active: true });
    assert.equal(on.json().performed_rollback, false);
  });

  test('evaluation tags change only when sent, and must stay a subset of tags', async () => {
    const flag = await createFlag(t, { key: 'eval-tags', tags: ['web', 'app'], evaluation_tags: ['web'] });
    const renamed = await patchFlag(t, flag.id, { name: 'n' });
    assert.deepEqual(renamed.json().evaluation_tags, ['web']);
    assertValidation(
      await patchFlag(t, flag.id, { tags: ['app'] }),
      'Evaluation tags must be a subset of tags. Invalid evaluation tags: web',
      null,
    );
    const cleared = await patchFlag(t, flag.id, { tags: ['app'], evaluation_tags: [] });
    assert.equal(cleared.statusCode, 200);
    assert.deepEqual(cleared.json().evaluation_tags, []);
  });

  test('analytics_dashboards only ever add links', async () => {
    const a = await createFlag(t, { key: 'dash-a' });
    const b = await createFlag(t, { key: 'dash-b' });
    const linked = await patchFlag(t, b.id, { analytics_dashboards: [a.usage_dashboard] });
    assert.deepEqual(linked.json().analytics_dashboards, [a.usage_dashboard]);
    const again = await patchFlag(t, b.id, { analytics_dashboards: [] });
    assert.deepEqual(again.json().analytics_dashboards, [a.usage_dashboard]);
  });

  test('PATCH of an unknown flag is 404', async () => {
    const response = await patchFlag(t, 777777, { name: 'x' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().code, 'not_found');
  });

  test('the update entry lists changed fields, version among them', async () => {
    const flag = await createFlag(t, { key: 'diffed', name: 'before' });
    await patchFlag(t, flag.id, { name: 'after' });
    const { rows } = await t.db.pool.query(
      "SELECT detail FROM activity_log WHERE item_id = $1 AND activity = 'updated'",
      [String(flag.id)],
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].detail.changes, [
      { type: 'FeatureFlag', action: 'changed', field: 'name', before: 'before', after: 'after' },
      { type: 'FeatureFlag', action: 'changed', field: 'version', before: 1, after: 2 },
    ]);
  });

  test('a refused update writes no activity and leaves the version alone', async () => {
    const flag = await createFlag(t, { key: 'refused' });
    await patchFlag(t, flag.id, { key: 'not valid' });
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM activity_log WHERE item_id = $1', [String(flag.id)]);
    assert.equal(rows[0].n, 1);
    assert.equal((await getFlag(t, flag.id)).json().version, 1);
  });
});

describe('dependencies', () => {
  test('a flag others depend on cannot be deleted or disabled', async () => {
    const base = await createFlag(t, { key: 'dep-base' });
    await createFlag(t, { key: 'dep-child', filters: dependsOn(base.id) });
    assertValidation(
      await patchFlag(t, base.id, { deleted: true }),
      `Cannot delete this feature flag because other flags depend on it: dep-child (ID: ${Number(base.id) + 1}). Please update or delete the dependent flags first.`,
      null,
    );
    assertValidation(
      await patchFlag(t, base.id, { active: false }),
      `Cannot disable this feature flag because other flags depend on it: dep-child (ID: ${Number(base.id) + 1}). Please update or disable the dependent flags first.`,
      null,
    );
    assert.equal((await getFlag(t, base.id)).json().active, true);
  });

  test('a flag depending on a disabled flag cannot be enabled', async () => {
    const base = await createFlag(t, { key: 'dep-off' });
    const child = await createFlag(t, { key: 'dep-off-child', filters: dependsOn(base.id), active: false });
    await patchFlag(t, base.id, { active: false });
    assertValidation(
      await patchFlag(t, child.id, { active: true }),
      `Cannot enable this feature flag because it depends on disabled flags: dep-off (ID: ${base.id}). Please enable the dependency flags first.`,
      null,
    );
  });

  test('a dependency on a missing flag, on itself, or in a cycle is refused', async () => {
    assertValidation(
      await t.request({ method: 'POST', url: '/api/projects/1/feature_flags/', payload: { key: 'dep-missing', filters: dependsOn(987654) } }),
      'Flag dependency references non-existent flag with ID 987654',
      'filters',
    );
    const a = await createFlag(t, { key: 'cyc-a' });
    const b = await createFlag(t, { key: 'cyc-b', filters: dependsOn(a.id) });
    assertValidation(await patchFlag(t, a.id, { filters: dependsOn(a.id) }), "Feature flag 'cyc-a' cannot depend on itself", 'filters');
    assertValidation(await patchFlag(t, a.id, { filters: dependsOn(b.id) }), 'Circular dependency detected: cyc-a → cyc-b → cyc-a', 'filters');
  });
});
