/**
 * A flag knows its experiments as PostHog shows them: `experiment_set` (live experiments), the
 * list's `type=experiment` (any experiment, deleted ones too), and a delete refused while a live
 * experiment uses the flag. Over two app instances: every answer holds the write before it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createExperiment, flagOf, patchExperiment, uniqueKey, type Json } from './support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ instances: 2 });
});
after(async () => {
  await t.close();
});

const flagsUrl = () => `/api/projects/${t.projectId}/feature_flags/`;

async function listKeys(query: string): Promise<string[]> {
  const response = await t.request({ method: 'GET', url: `${flagsUrl()}?${query}` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().results.map((flag: Json) => flag.key);
}

async function deleteFlag(id: number) {
  return t.request({ method: 'PATCH', url: `${flagsUrl()}${id}/`, payload: { deleted: true } });
}

test('experiment_set lists the live experiments using the flag; type=experiment finds their flags', async () => {
  const first = await createExperiment(t);
  const flagId = first.feature_flag.id;
  assert.deepEqual((await flagOf(t, flagId)).experiment_set, [first.id]);
  // A second experiment on the same (existing) flag.
  const second = await createExperiment(t, { feature_flag_key: first.feature_flag_key });
  assert.deepEqual((await flagOf(t, flagId)).experiment_set, [first.id, second.id]);

  const plain = await t.request({ method: 'POST', url: flagsUrl(), payload: { key: uniqueKey('plain'), filters: { groups: [{ properties: [], rollout_percentage: 100 }] } } });
  assert.equal(plain.statusCode, 201, plain.body);
  assert.deepEqual(plain.json().experiment_set, []);
  const experimentFlags = await listKeys('type=experiment');
  assert.ok(experimentFlags.includes(first.feature_flag_key));
  assert.ok(!experimentFlags.includes(plain.json().key));
  assert.ok((await listKeys('type=multivariant')).includes(first.feature_flag_key));

  // A deleted experiment leaves experiment_set; the flag still counts as an experiment's (PostHog's filter).
  assert.equal((await patchExperiment(t, second.id, { deleted: true })).statusCode, 200);
  assert.deepEqual((await flagOf(t, flagId)).experiment_set, [first.id]);
  assert.equal((await patchExperiment(t, second.id, { deleted: false })).statusCode, 200);
  assert.deepEqual((await flagOf(t, flagId)).experiment_set, [first.id, second.id]);
});

test('deleting a flag a live experiment uses is refused with PostHog’s message, nothing written; allowed once the experiments are deleted', async () => {
  const a = await createExperiment(t);
  const b = await createExperiment(t, { feature_flag_key: a.feature_flag_key });
  const flagId = a.feature_flag.id;
  const versionBefore = (await flagOf(t, flagId)).version;

  const refused = await deleteFlag(flagId);
  assert.equal(refused.statusCode, 400);
  assert.deepEqual(refused.json(), {
    type: 'validation_error',
    code: 'invalid_input',
    detail: `Cannot delete a feature flag that is linked to active experiment(s) with ID(s): ${a.id}, ${b.id}. Please delete the experiment(s) before deleting the flag.`,
    attr: null,
  });
  const unchanged = await flagOf(t, flagId);
  assert.equal(unchanged.deleted, false);
  assert.equal(unchanged.version, versionBefore);

  // bulk_delete goes through the same rule.
  const bulk = await t.request({ method: 'POST', url: `${flagsUrl()}bulk_delete/`, payload: { ids: [flagId] } });
  assert.equal(bulk.statusCode, 200, bulk.body);
  assert.deepEqual(bulk.json().deleted, []);
  assert.match(bulk.json().errors[0].reason, /linked to active experiment\(s\) with ID\(s\): /);

  // Deleting one experiment releases only its own hold.
  assert.equal((await patchExperiment(t, a.id, { deleted: true })).statusCode, 200);
  const stillRefused = await deleteFlag(flagId);
  assert.equal(stillRefused.statusCode, 400);
  assert.match(stillRefused.json().detail, new RegExp(`ID\\(s\\): ${b.id}\\. `));

  assert.equal((await patchExperiment(t, b.id, { deleted: true })).statusCode, 200);
  const deleted = await deleteFlag(flagId);
  assert.equal(deleted.statusCode, 200, deleted.body);
  assert.equal(deleted.json().deleted, true);
  assert.deepEqual(deleted.json().experiment_set, []);
});
