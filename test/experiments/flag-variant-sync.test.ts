/**
 * Editing an experiment's flag through the flags API rewrites the experiment's
 * `parameters.feature_flag_variants` (and group type) as PostHog does, in the flag write's
 * transaction: a running experiment too, a deleted one not, a refused flag edit changes nothing,
 * and the draft-side rewrite (experiment PATCH of `parameters`) still ends with the experiment's
 * and the flag's variants equal.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { action, createExperiment, experimentsUrl, flagOf, patchExperiment, type Json } from './support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const patchFlag = (id: number, payload: Json) => t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${id}/`, payload });

async function experimentOf(id: number): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${experimentsUrl(t.projectId)}${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

const three = [
  { key: 'control', name: 'Control', rollout_percentage: 34 },
  { key: 'test', name: 'Test', rollout_percentage: 33 },
  { key: 'third', name: 'Third', rollout_percentage: 33 },
];

test("a flag variant edit rewrites a running experiment's feature_flag_variants; a deleted experiment's stays", async () => {
  const running = await createExperiment(t);
  assert.equal((await action(t, running.id, 'launch')).statusCode, 200);
  const deleted = await createExperiment(t, { feature_flag_key: running.feature_flag_key });
  const deletedBefore = (await experimentOf(deleted.id)).parameters;
  assert.equal((await patchExperiment(t, deleted.id, { deleted: true })).statusCode, 200);
  const flag = await flagOf(t, running.feature_flag.id);

  const edited = await patchFlag(flag.id, { filters: { ...flag.filters, multivariate: { variants: three } } });
  assert.equal(edited.statusCode, 200, edited.body);
  const after = await experimentOf(running.id);
  assert.deepEqual(after.parameters.feature_flag_variants, three);
  assert.equal('aggregation_group_type_index' in after.parameters, false);
  assert.deepEqual((await flagOf(t, flag.id)).filters.multivariate.variants, three);

  const { rows } = await t.db.pool.query('SELECT parameters FROM experiments WHERE id = $1', [deleted.id]);
  assert.deepEqual(rows[0].parameters, deletedBefore);
});

test('an edit that leaves the filters alone, and a refused one, do not touch the experiment', async () => {
  const experiment = await createExperiment(t);
  const before = (await experimentOf(experiment.id)).parameters;
  const flagId = experiment.feature_flag.id;
  assert.equal((await patchFlag(flagId, { name: 'renamed' })).statusCode, 200);
  assert.deepEqual((await experimentOf(experiment.id)).parameters, before);

  // Variants that do not add up to 100: the flag write is refused, nothing else written.
  const refused = await patchFlag(flagId, { filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 10 }] } } });
  assert.equal(refused.statusCode, 400, refused.body);
  assert.deepEqual((await experimentOf(experiment.id)).parameters, before);
});

test("a draft's parameters PATCH still leaves the experiment and its flag with the same variants", async () => {
  const draft = await createExperiment(t);
  const sent = [
    { key: 'control', name: 'Control', rollout_percentage: 60 },
    { key: 'test', name: 'Test', rollout_percentage: 40 },
  ];
  const patched = await patchExperiment(t, draft.id, { parameters: { feature_flag_variants: sent } });
  assert.equal(patched.statusCode, 200, patched.body);
  const stored = (await experimentOf(draft.id)).parameters.feature_flag_variants;
  const onFlag = (await flagOf(t, draft.feature_flag.id)).filters.multivariate.variants;
  assert.deepEqual(
    stored.map((v: Json) => [v.key, v.rollout_percentage]),
    onFlag.map((v: Json) => [v.key, v.rollout_percentage]),
  );
  assert.deepEqual(onFlag.map((v: Json) => [v.key, v.rollout_percentage]), [['control', 60], ['test', 40]]);
});

test('a flag no live experiment uses is edited without touching any experiment', async () => {
  const created = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/feature_flags/`,
    payload: { key: `plain-${Date.now()}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: three.slice(0, 2).map((v) => ({ ...v, rollout_percentage: 50 })) } } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const { rows: before } = await t.db.pool.query('SELECT id, parameters FROM experiments ORDER BY id');
  const edited = await patchFlag(created.json().id, { filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: three } } });
  assert.equal(edited.statusCode, 200, edited.body);
  const { rows: after } = await t.db.pool.query('SELECT id, parameters FROM experiments ORDER BY id');
  assert.deepEqual(after, before);
});
