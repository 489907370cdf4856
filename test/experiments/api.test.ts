import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertValidation, keyWith } from '../helpers/api.ts';
import { action, createExperiment, experimentsUrl, flagOf, funnelMetric, meanMetric, patchExperiment, uniqueKey, type Json } from './support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

async function count(table: string): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0].n;
}

describe('create', () => {
  test('a draft creates its multivariate flag as PostHog does: control/test 50/50, everyone, inactive', async () => {
    const key = uniqueKey();
    const experiment = await createExperiment(t, { name: 'Checkout', feature_flag_key: key });
    assert.equal(experiment.status, 'draft');
    assert.equal(experiment.start_date, null);
    assert.equal(experiment.feature_flag_key, key);
    assert.deepEqual(experiment.stats_config, { method: 'bayesian' });
    assert.equal(experiment.saved_metrics_ids, null);
    assert.deepEqual(experiment.saved_metrics, []);
    assert.equal(experiment.holdout, null);
    const flag = await flagOf(t, experiment.feature_flag.id);
    assert.equal(flag.name, 'Feature Flag for Experiment Checkout');
    assert.equal(flag.active, false);
    assert.equal(flag.creation_context, 'experiments');
    assert.deepEqual(
      flag.filters.multivariate.variants.map((v: Json) => [v.key, v.rollout_percentage]),
      [['control', 50], ['test', 50]],
    );
    assert.equal(flag.filters.groups[0].rollout_percentage, 100);
  });

  test('variants from parameters; an existing flag with control first is used unchanged', async () => {
    const variants = [
      { key: 'control', rollout_percentage: 34 },
      { key: 'a', rollout_percentage: 33 },
      { key: 'b', rollout_percentage: 33 },
    ];
    const first = await createExperiment(t, { parameters: { feature_flag_variants: variants } });
    const flag = await flagOf(t, first.feature_flag.id);
    assert.deepEqual(flag.filters.multivariate.variants.map((v: Json) => v.key), ['control', 'a', 'b']);
    const second = await createExperiment(t, { feature_flag_key: first.feature_flag_key });
    assert.equal(second.feature_flag.id, first.feature_flag.id);
    assert.equal((await flagOf(t, first.feature_flag.id)).version, flag.version);
  });

  test('refusals in PostHog words, with nothing written', async () => {
    const experimentsBefore = await count('experiments');
    const flagsBefore = await count('feature_flags');
    const post = (payload: Json) => t.request({ method: 'POST', url: experimentsUrl(t.projectId), payload: { name: 'x', feature_flag_key: uniqueKey(), ...payload } });

    assertValidation(await post({ parameters: { feature_flag_variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } }), 'Feature flag variants must contain a control variant', 'parameters');
    const many = Array.from({ length: 21 }, (_, i) => ({ key: i === 0 ? 'control' : `v${i}`, rollout_percentage: 0 }));
    assertValidation(await post({ parameters: { feature_flag_variants: many } }), 'Feature flag variants must be less than 21', 'parameters');
    const badSplit = await post({ parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 40 }] } });
    assert.equal(badSplit.statusCode, 400, badSplit.body);
    assert.match(badSplit.json().detail, /sum to 100/);
    assertValidation(await post({ filters: { properties: [{ key: 'a', value: 'b' }] } }), 'Experiments do not support global filter properties', 'filters');
    assertValidation(await post({ saved_metrics_ids: [{ id: 1, metadata: { type: 'primary' } }] }), 'Saved metric does not exist or does not belong to this project', 'saved_metrics_ids');
    assertValidation(await post({ start_date: '2024-02-01T00:00:00Z', end_date: '2024-01-01T00:00:00Z' }), 'End date must be after start date', null);
    assertValidation(await post({ exposure_criteria: { filterTestAccounts: 'true' } }), 'filterTestAccounts must be a boolean', 'exposure_criteria');
    const retention = await post({ metrics: [{ kind: 'ExperimentMetric', metric_type: 'retention' }] });
    assert.equal(retention.statusCode, 400);
    assert.match(retention.json().detail, /Retention metrics are not served/);
    const missing = await t.request({ method: 'POST', url: experimentsUrl(t.projectId), payload: { name: 'x' } });
    assertValidation(missing, 'This field is required.', 'feature_flag_key', 'required');

    // A boolean flag, and one whose first variant is not control.
    const boolKey = uniqueKey('bool');
    assert.equal((await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: { key: boolKey, filters: { groups: [{ rollout_percentage: 100 }] } } })).statusCode, 201);
    const notFirst = uniqueKey('nf');
    const mv = { groups: [{ rollout_percentage: 100 }], multivariate: { variants: [{ key: 'test', rollout_percentage: 50 }, { key: 'control', rollout_percentage: 50 }] } };
    assert.equal((await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: { key: notFirst, filters: mv } })).statusCode, 201);
    const flagsNow = await count('feature_flags');
    assertValidation(await post({ feature_flag_key: boolKey }), 'Feature flag is not eligible for experiments.', null);
    assertValidation(await post({ feature_flag_key: notFirst }), 'Feature flag must have control as the first variant.', null);

    assert.equal(await count('experiments'), experimentsBefore);
    assert.equal(await count('feature_flags'), flagsNow);
    assert.equal(flagsNow, flagsBefore + 2);
  });

  test('metrics get uuids, fingerprints and the ordering arrays', async () => {
    const experiment = await createExperiment(t, { metrics: [meanMetric('purchase')], metrics_secondary: [funnelMetric('a', 'b')] });
    const [metric] = experiment.metrics;
    assert.match(metric.uuid, /^[0-9a-f-]{36}$/);
    assert.match(metric.fingerprint, /^[0-9a-f]{64}$/);
    assert.deepEqual(experiment.primary_metrics_ordered_uuids, [metric.uuid]);
    assert.deepEqual(experiment.secondary_metrics_ordered_uuids, [experiment.metrics_secondary[0].uuid]);
    const response = await patchExperiment(t, experiment.id, { primary_metrics_ordered_uuids: [] , metrics: experiment.metrics });
    assertValidation(
      response,
      `primary_metrics_ordered_uuids is missing UUIDs: ['${metric.uuid}']. This is likely a frontend bug - please refresh and try again.`,
      'primary_metrics_ordered_uuids',
    );
  });
});

describe('list, retrieve, update, delete', () => {
  test('filters by status, archived and search; paginates', async () => {
    const name = `Listed ${Date.now()}`;
    const draft = await createExperiment(t, { name: `${name} draft` });
    const running = await createExperiment(t, { name: `${name} running` });
    assert.equal((await action(t, running.id, 'launch')).statusCode, 200);
    const list = async (query: string) => (await t.request({ method: 'GET', url: `${experimentsUrl(t.projectId)}?search=${encodeURIComponent(name)}&${query}` })).json();
    assert.deepEqual((await list('status=draft')).results.map((e: Json) => e.id), [draft.id]);
    assert.deepEqual((await list('status=running')).results.map((e: Json) => e.id), [running.id]);
    const page = await list('limit=1');
    assert.equal(page.count, 2);
    assert.equal(page.results.length, 1);
    assert.match(page.next, /offset=1/);
    assert.equal((await patchExperiment(t, draft.id, { archived: true })).statusCode, 200);
    assert.deepEqual((await list('')).results.map((e: Json) => e.id), [running.id]);
    assert.deepEqual((await list('archived=true')).results.map((e: Json) => e.id), [draft.id]);
  });

  test('PATCH updates, refuses type and another flag key; a launched experiment keeps its variants', async () => {
    const experiment = await createExperiment(t);
    const patched = await patchExperiment(t, experiment.id, { name: 'Renamed', description: 'why' });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().name, 'Renamed');
    assertValidation(await patchExperiment(t, experiment.id, { type: 'web', feature_flag_key: 'other' }), "Can't update keys: feature_flag_key, type on Experiment", null);
    // A draft's parameters rewrite the flag.
    const variants = [{ key: 'control', rollout_percentage: 20 }, { key: 'test', rollout_percentage: 80 }];
    assert.equal((await patchExperiment(t, experiment.id, { parameters: { feature_flag_variants: variants } })).statusCode, 200);
    assert.deepEqual((await flagOf(t, experiment.feature_flag.id)).filters.multivariate.variants.map((v: Json) => v.rollout_percentage), [20, 80]);
    assert.equal((await action(t, experiment.id, 'launch')).statusCode, 200);
    const three = [...variants, { key: 'third', rollout_percentage: 0 }];
    assertValidation(await patchExperiment(t, experiment.id, { parameters: { feature_flag_variants: three } }), "Can't update feature_flag_variants on Experiment", null);
  });

  test('a refused draft update writes nothing: neither the flag nor the experiment', async () => {
    const experiment = await createExperiment(t, { name: 'Untouched' });
    const flagBefore = await flagOf(t, experiment.feature_flag.id);
    const bad = [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 40 }];
    const response = await patchExperiment(t, experiment.id, { name: 'Changed', parameters: { feature_flag_variants: bad } });
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().detail, /sum to 100/);
    const flagAfter = await flagOf(t, experiment.feature_flag.id);
    assert.equal(flagAfter.version, flagBefore.version);
    assert.deepEqual(flagAfter.filters, flagBefore.filters);
    const stored = await t.request({ method: 'GET', url: `${experimentsUrl(t.projectId)}${experiment.id}/` });
    assert.equal(stored.json().name, 'Untouched');
    const activity = (await t.request({ method: 'GET', url: `${experimentsUrl(t.projectId)}${experiment.id}/activity/` })).json();
    assert.deepEqual(activity.results.map((a: Json) => a.activity), ['created']);
  });

  test('DELETE is 405; soft delete hides it, restore brings it back; activity records each', async () => {
    const experiment = await createExperiment(t);
    const url = `${experimentsUrl(t.projectId)}${experiment.id}/`;
    const deleted = await t.request({ method: 'DELETE', url });
    assert.equal(deleted.statusCode, 405);
    assert.equal(deleted.body, '');
    assert.equal((await patchExperiment(t, experiment.id, { deleted: true })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url })).statusCode, 404);
    assert.equal((await patchExperiment(t, experiment.id, { name: 'x' })).statusCode, 404);
    assert.equal((await patchExperiment(t, experiment.id, { deleted: false })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url })).statusCode, 200);
    const activity = (await t.request({ method: 'GET', url: `${url}activity/` })).json();
    assert.deepEqual(activity.results.map((a: Json) => a.activity), ['restored', 'deleted', 'created']);
    assert.equal(activity.results[0].scope, 'Experiment');
  });

  test('duplicate: "(Copy)", then "(Copy) 1"; a draft on the same flag', async () => {
    const experiment = await createExperiment(t, { name: `Dup ${Date.now()}`, metrics: [meanMetric('buy')] });
    const first = await action(t, experiment.id, 'duplicate');
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.json().name, `${experiment.name} (Copy)`);
    assert.equal(first.json().feature_flag.id, experiment.feature_flag.id);
    assert.equal(first.json().metrics[0].uuid, experiment.metrics[0].uuid);
    const second = await action(t, experiment.id, 'duplicate');
    assert.equal(second.json().name, `${experiment.name} (Copy) 1`);
  });
});

describe('lifecycle actions', () => {
  test('launch, pause, resume, end, archive, unarchive, reset with their rules; the flag follows', async () => {
    const experiment = await createExperiment(t);
    const flagId = experiment.feature_flag.id;
    assertValidation(await action(t, experiment.id, 'pause'), 'Experiment has not been launched yet.', null);
    assertValidation(await action(t, experiment.id, 'reset'), 'Experiment is already a draft.', null);
    const launched = await action(t, experiment.id, 'launch');
    assert.equal(launched.statusCode, 200, launched.body);
    assert.equal(launched.json().status, 'running');
    assert.ok(launched.json().start_date);
    assert.equal((await flagOf(t, flagId)).active, true);
    assertValidation(await action(t, experiment.id, 'launch'), 'Experiment has already been launched.', null);
    assertValidation(await action(t, experiment.id, 'resume'), 'Experiment is not paused.', null);
    assert.equal((await action(t, experiment.id, 'pause')).statusCode, 200);
    assert.equal((await flagOf(t, flagId)).active, false);
    const paused = await t.request({ method: 'GET', url: `${experimentsUrl(t.projectId)}?status=paused` });
    assert.ok(paused.json().results.some((e: Json) => e.id === experiment.id));
    assertValidation(await action(t, experiment.id, 'pause'), 'Experiment is already paused.', null);
    assert.equal((await action(t, experiment.id, 'resume')).statusCode, 200);
    assert.equal((await flagOf(t, flagId)).active, true);
    assertValidation(await action(t, experiment.id, 'archive'), 'Only ended experiments can be archived.', null);
    const ended = await action(t, experiment.id, 'end', { conclusion: 'won', conclusion_comment: 'clear' });
    assert.equal(ended.statusCode, 200, ended.body);
    assert.equal(ended.json().status, 'stopped');
    assert.equal(ended.json().conclusion, 'won');
    assert.equal((await flagOf(t, flagId)).active, true, 'end leaves the flag alone');
    assert.equal((await action(t, experiment.id, 'archive')).statusCode, 200);
    assertValidation(await action(t, experiment.id, 'archive'), 'Experiment is already archived.', null);
    assert.equal((await action(t, experiment.id, 'unarchive')).statusCode, 200);
    assertValidation(await action(t, experiment.id, 'unarchive'), 'Experiment is not archived.', null);
    const reset = await action(t, experiment.id, 'reset');
    assert.equal(reset.json().status, 'draft');
    assert.equal(reset.json().end_date, null);
    assert.equal(reset.json().conclusion, null);
  });

  test('ship_variant gives the variant 100 % and ends the experiment; unknown variants refused', async () => {
    const experiment = await createExperiment(t);
    assertValidation(await action(t, experiment.id, 'ship_variant', { variant_key: 'test' }), 'Experiment has not been launched yet.', null);
    await action(t, experiment.id, 'launch');
    assertValidation(await action(t, experiment.id, 'ship_variant', { variant_key: 'nope' }), 'Variant "nope" does not exist on the feature flag.', 'variant_key');
    const shipped = await action(t, experiment.id, 'ship_variant', { variant_key: 'test', release_to_everyone: true });
    assert.equal(shipped.statusCode, 200, shipped.body);
    assert.equal(shipped.json().status, 'stopped');
    const flag = await flagOf(t, experiment.feature_flag.id);
    assert.deepEqual(flag.filters.multivariate.variants.map((v: Json) => [v.key, v.rollout_percentage]), [['control', 0], ['test', 100]]);
    assert.equal(flag.filters.groups.length, 2);
    assert.deepEqual(flag.filters.groups[0].properties, []);
  });

  test('archive with disable_feature_flag switches the flag off and archives it', async () => {
    const experiment = await createExperiment(t);
    await action(t, experiment.id, 'launch');
    await action(t, experiment.id, 'end');
    assert.equal((await action(t, experiment.id, 'archive', { disable_feature_flag: true })).statusCode, 200);
    const flag = await flagOf(t, experiment.feature_flag.id);
    assert.equal(flag.active, false);
    assert.equal(flag.archived, true);
  });
});

describe('scopes', () => {
  test('experiment:read reads, cannot write; experiment:write writes', async () => {
    const experiment = await createExperiment(t);
    const reader = await keyWith(t, ['experiment:read']);
    assert.equal((await t.request({ method: 'GET', url: experimentsUrl(t.projectId), key: reader })).statusCode, 200);
    assert.equal((await patchExperiment(t, experiment.id, { name: 'no' }, reader)).statusCode, 403);
    const flagsOnly = await keyWith(t, ['feature_flag:write']);
    assert.equal((await t.request({ method: 'GET', url: experimentsUrl(t.projectId), key: flagsOnly })).statusCode, 403);
    const writer = await keyWith(t, ['experiment:write', 'feature_flag:write']);
    assert.equal((await patchExperiment(t, experiment.id, { name: 'yes' }, writer)).statusCode, 200);
  });
});
