// bulk_update_tags and bulk_delete: per-flag results, rules still applied, other projects untouched.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { keyWith, otherProject } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertValidation, createFlag, type Json } from './flag-client.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const url = (suffix: string, project: number = t.projectId) => `/api/projects/${project}/feature_flags/${suffix}`;
const tagsOf = async (id: unknown) => (await t.request({ method: 'GET', url: url(`${id}/`) })).json().tags;

describe('bulk_update_tags', () => {
  test('add, remove and set; unknown ids and other projects are skipped; evaluation tags follow removed tags', async () => {
    const a = await createFlag(t, { key: 'bt-a', tags: ['web'] });
    const b = await createFlag(t, { key: 'bt-b', tags: ['web', 'beta'], evaluation_tags: ['beta'] });
    const other = await otherProject(t);
    const foreign = (await t.request({ method: 'POST', url: url('', other), payload: { key: 'bt-foreign' } })).json();

    const added = await t.request({ method: 'POST', url: url('bulk_update_tags/'), payload: { ids: [a.id, b.id, 999999, foreign.id], action: 'add', tags: [' Mobile '] } });
    assert.equal(added.statusCode, 200, added.body);
    assert.deepEqual(added.json(), {
      updated: [{ id: a.id, tags: ['web', 'mobile'] }, { id: b.id, tags: ['web', 'beta', 'mobile'] }],
      skipped: [{ id: 999999, reason: 'Not found' }, { id: foreign.id, reason: 'Not found' }],
    });
    assert.deepEqual((await t.request({ method: 'GET', url: url(`${foreign.id}/`, other) })).json().tags, []);

    const removed = await t.request({ method: 'POST', url: url('bulk_update_tags'), payload: { ids: [b.id], action: 'remove', tags: ['beta'] } });
    assert.deepEqual(removed.json().updated, [{ id: b.id, tags: ['web', 'mobile'] }]);
    assert.deepEqual((await t.request({ method: 'GET', url: url(`${b.id}/`) })).json().evaluation_tags, []);

    const set = await t.request({ method: 'POST', url: url('bulk_update_tags'), payload: { ids: [a.id, b.id], action: 'set', tags: ['x'] } });
    assert.equal(set.statusCode, 200);
    assert.deepEqual(await tagsOf(a.id), ['x']);
    assert.deepEqual(await tagsOf(b.id), ['x']);
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM activity_log WHERE scope = 'FeatureFlag' AND item_id = $1 AND activity = 'updated'", [String(a.id)]);
    assert.equal(rows[0].n, 2, 'one entry per change');
  });

  test('validation and scope', async () => {
    const flag = await createFlag(t, { key: 'bt-v' });
    assertValidation(await t.request({ method: 'POST', url: url('bulk_update_tags/'), payload: { ids: [flag.id], action: 'toggle', tags: [] } }), '"toggle" is not a valid choice.', 'action');
    assertValidation(await t.request({ method: 'POST', url: url('bulk_update_tags/'), payload: { action: 'add', tags: [] } }), 'This field is required.', 'ids');
    assert.equal((await t.request({ method: 'POST', url: url('bulk_update_tags/'), payload: { ids: Array(1001).fill(1), action: 'add', tags: [] } })).statusCode, 400);
    const reader = await keyWith(t, ['feature_flag:read']);
    assert.equal((await t.request({ method: 'POST', url: url('bulk_update_tags/'), payload: { ids: [flag.id], action: 'add', tags: ['x'] }, key: reader })).statusCode, 403);
    assert.deepEqual(await tagsOf(flag.id), []);
    assert.equal((await t.request({ method: 'GET', url: url('bulk_update_tags/') })).statusCode, 405);
  });
});

describe('bulk_delete', () => {
  test('by ids: deletes, reports unknown, malformed and refused ones; rollout state of each', async () => {
    const full = await createFlag(t, { key: 'bd-full', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    const part = await createFlag(t, { key: 'bd-part', filters: { groups: [{ properties: [], rollout_percentage: 30 }] } });
    const base = await createFlag(t, { key: 'bd-base' });
    await createFlag(t, { key: 'bd-child', filters: { groups: [{ properties: [{ key: String(base.id), type: 'flag', value: true, operator: 'flag_evaluates_to' }], rollout_percentage: 100 }] } });

    const response = await t.request({ method: 'POST', url: url('bulk_delete/'), payload: { ids: [full.id, String(part.id), base.id, 999999, 'x'] } });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(body.deleted, [
      { id: full.id, key: 'bd-full', rollout_state: 'fully_rolled_out', active_variant: null },
      { id: part.id, key: 'bd-part', rollout_state: 'partial', active_variant: null },
    ]);
    assert.deepEqual(body.errors.map((e: Json) => e.id), [999999, 'x', base.id]);
    assert.match(body.errors[2].reason, /other flags depend on it: bd-child/);
    const { rows } = await t.db.pool.query('SELECT key, deleted FROM feature_flags WHERE id = ANY($1::int[]) ORDER BY key', [[full.id, part.id, base.id]]);
    assert.deepEqual(rows, [{ key: 'bd-base', deleted: false }, { key: 'bd-full', deleted: true }, { key: 'bd-part', deleted: true }]);
  });

  test('by filters: the list filters choose; unknown keys, both or neither are a 400 and nothing is deleted', async () => {
    await createFlag(t, { key: 'bdf-old-1', tags: ['cleanup'] });
    await createFlag(t, { key: 'bdf-old-2', tags: ['cleanup'] });
    await createFlag(t, { key: 'bdf-keep', tags: ['keep'] });
    const count = async () => (await t.db.pool.query("SELECT count(*)::int AS n FROM feature_flags WHERE key LIKE 'bdf-%' AND NOT deleted")).rows[0].n;

    assertValidation(await t.request({ method: 'POST', url: url('bulk_delete/'), payload: { filters: { tag: 'cleanup' } } }), 'Unknown filter keys: tag', 'filters');
    assertValidation(await t.request({ method: 'POST', url: url('bulk_delete/'), payload: { filters: { search: 'bdf' }, ids: [1] } }), 'Provide either filters or ids, not both', null);
    assertValidation(await t.request({ method: 'POST', url: url('bulk_delete/'), payload: {} }), 'Must provide either filters or ids', null);
    assert.equal(await count(), 3);

    const response = await t.request({ method: 'POST', url: url('bulk_delete/'), payload: { filters: { tags: ['cleanup'], search: 'bdf' } } });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json().deleted.map((d: Json) => d.key).sort(), ['bdf-old-1', 'bdf-old-2']);
    assert.equal(await count(), 1);
    const reader = await keyWith(t, ['feature_flag:read']);
    assert.equal((await t.request({ method: 'POST', url: url('bulk_delete/'), payload: { filters: { search: 'bdf' } }, key: reader })).statusCode, 403);
    assert.equal(await count(), 1);
  });
});
