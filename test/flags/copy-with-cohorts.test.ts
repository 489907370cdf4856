// copy_flags with a flag that targets cohorts: the cohorts come along, the flag's ids follow.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { otherProject } from '../helpers/api.ts';
import { currentOrganizationId, foreignOrganization } from '../accounts/support.ts';
import { addToStaticCohort, identify, startSdkApp, type Json, type SdkTestApp } from '../sdk/support.ts';
import { eventually } from '../helpers/eventually.ts';

let t: SdkTestApp;
let organizationId: string;
before(async () => {
  t = await startSdkApp();
  organizationId = await currentOrganizationId(t);
});
after(() => t.close());

const person = (key: string, value: string) => ({ properties: { type: 'OR', values: [{ type: 'AND', values: [{ key, type: 'person', value, operator: 'exact' }] }] } });
const refersTo = (id: number) => ({ properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'id', type: 'cohort', value: id }] }] } });
const cohortCondition = (...ids: number[]) => ({ groups: [{ properties: ids.map((id) => ({ key: 'id', type: 'cohort', value: id })), rollout_percentage: 100 }] });

async function newCohort(project: number, body: Json): Promise<Json> {
  const response = await t.request({ method: 'POST', url: `/api/projects/${project}/cohorts/`, payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}
async function newFlag(key: string, filters: Json): Promise<Json> {
  const response = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: { key, filters } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}
const copy = async (key: string, targets: number[]) => {
  const response = await t.request({
    method: 'POST',
    url: `/api/organizations/${organizationId}/feature_flags/copy_flags/`,
    payload: { feature_flag_key: key, from_project: t.projectId, target_project_ids: targets },
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json() as { success: Json[]; failed: Json[] };
};
const cohortsOf = async (project: number): Promise<Json[]> =>
  (await t.db.pool.query('SELECT id, name, is_static, filters, count, created_by_id FROM cohorts WHERE project_id = $1 AND NOT deleted ORDER BY id', [project])).rows;
const flagOf = async (project: number, key: string): Promise<Json | undefined> =>
  (await t.db.pool.query('SELECT id, filters FROM feature_flags WHERE project_id = $1 AND key = $2 AND NOT deleted', [project, key])).rows[0];

test('a nested dynamic cohort chain is created in the target, the flag points at it and evaluates there through /flags', async () => {
  const leaf = await newCohort(t.projectId, { name: 'Pro plan', description: 'paying', filters: person('plan', 'pro') });
  const top = await newCohort(t.projectId, { name: 'Pros (nested)', filters: refersTo(leaf.id) });
  await newFlag('nested-cohorts', cohortCondition(top.id));
  const target = await otherProject(t);

  const answer = await copy('nested-cohorts', [target]);
  assert.deepEqual(answer.failed, []);
  const cohorts = await cohortsOf(target);
  assert.deepEqual(cohorts.map((c) => c.name), ['Pro plan', 'Pros (nested)'], 'referenced cohorts are created first');
  const [targetLeaf, targetTop] = cohorts;
  assert.deepEqual(targetLeaf.filters, leaf.filters);
  assert.deepEqual(targetTop.filters, refersTo(targetLeaf.id), 'the nested reference is rewritten to the target cohort');
  assert.equal(targetLeaf.is_static, false);
  const flag = await flagOf(target, 'nested-cohorts');
  assert.deepEqual(flag?.filters.groups[0].properties, [{ key: 'id', type: 'cohort', value: targetTop.id }]);
  assert.equal(answer.success[0].filters.groups[0].properties[0].value, targetTop.id);
  const activity = (
    await t.db.pool.query("SELECT scope, item_id, activity, user_id FROM activity_log WHERE project_id = $1 ORDER BY id", [target])
  ).rows.map((row) => `${row.scope}:${row.activity}:${row.user_id !== null}`);
  assert.deepEqual(activity.sort(), ['Cohort:created:true', 'Cohort:created:true', 'FeatureFlag:created:true'], 'attributed to the user');

  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [target]);
  const token = rows[0].api_token;
  const batch = await t.app.inject({
    method: 'POST',
    url: '/batch/',
    payload: {
      api_key: token,
      batch: [identify('pro-user', { plan: 'pro' }), identify('free-user', { plan: 'free' })].map((e) => ({ uuid: randomUUID(), timestamp: new Date().toISOString(), ...e })),
    },
  });
  assert.equal(batch.statusCode, 200, batch.body);
  const evaluate = async (distinctId: string) =>
    (await t.app.inject({ method: 'POST', url: '/flags/?v=2', payload: { token, distinct_id: distinctId } })).json().flags?.['nested-cohorts']?.enabled;
  await eventually('the copied flag matching the copied cohort', async () => (await evaluate('pro-user')) === true);
  assert.equal(await evaluate('free-user'), false);
});

test('a cohort of the same name in the target is used, not copied; a static cohort arrives empty', async () => {
  const target = await otherProject(t);
  const theirs = await newCohort(target, { name: 'Beta testers', filters: person('beta', 'yes') });
  const ours = await newCohort(t.projectId, { name: 'Beta testers', filters: person('beta', 'true') });
  const list = await newCohort(t.projectId, { name: 'Hand picked', is_static: true });
  await t.app.inject({
    method: 'POST',
    url: '/batch/',
    payload: { api_key: t.token, batch: [{ uuid: randomUUID(), timestamp: new Date().toISOString(), ...identify('picked', { plan: 'x' }) }] },
  });
  await addToStaticCohort(t, list.id, ['picked']);
  await newFlag('reuse-and-static', cohortCondition(ours.id, list.id));

  const answer = await copy('reuse-and-static', [target]);
  assert.deepEqual(answer.failed, []);
  const cohorts = await cohortsOf(target);
  assert.deepEqual(cohorts.map((c) => c.name), ['Beta testers', 'Hand picked']);
  assert.equal(cohorts[0].id, theirs.id);
  assert.deepEqual(cohorts[0].filters, person('beta', 'yes'), "the target's cohort is left as it is");
  assert.equal(cohorts[1].is_static, true);
  const members = await t.db.pool.query('SELECT count(*)::int AS n FROM cohort_people WHERE cohort_id = $1', [cohorts[1].id]);
  assert.equal(members.rows[0].n, 0, 'persons of the source project are not copied');
  const flag = await flagOf(target, 'reuse-and-static');
  assert.deepEqual(flag?.filters.groups[0].properties.map((p: Json) => p.value), [theirs.id, cohorts[1].id]);
});

test('a deleted cohort or another organization\'s cohort fails the target, nothing of it written; other failures as before', async () => {
  const kept = await newCohort(t.projectId, { name: 'Kept cohort', filters: person('kept', 'yes') });
  const gone = await newCohort(t.projectId, { name: 'Gone cohort', filters: person('gone', 'yes') });
  const flag = await newFlag('half-cohorted', cohortCondition(kept.id, gone.id));
  await t.db.pool.query('UPDATE cohorts SET deleted = true WHERE id = $1', [gone.id]);
  const target = await otherProject(t);

  const answer = await copy('half-cohorted', [target]);
  assert.equal(answer.success.length, 0);
  assert.deepEqual(answer.failed, [{ project_id: target, errors: `Cohort ${gone.id} does not exist in the source project.` }]);
  assert.deepEqual(await cohortsOf(target), [], 'the cohort copied before the failure is rolled back');
  assert.equal(await flagOf(target, 'half-cohorted'), undefined);
  const entries = await t.db.pool.query('SELECT count(*)::int AS n FROM activity_log WHERE project_id = $1', [target]);
  assert.equal(entries.rows[0].n, 0);

  const foreign = await foreignOrganization(t);
  const { rows } = await t.db.pool.query<{ id: number }>(
    "INSERT INTO cohorts (project_id, name, is_static, filters) VALUES ($1, 'Theirs', false, '{}') RETURNING id",
    [foreign.projectId],
  );
  await t.db.pool.query('UPDATE feature_flags SET filters = $2 WHERE id = $1', [flag.id, JSON.stringify(cohortCondition(kept.id, rows[0].id))]);
  await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { name: 'touched' } });
  const again = await copy('half-cohorted', [target, t.projectId]);
  assert.deepEqual(again.failed, [
    { project_id: target, errors: `Cohort ${rows[0].id} does not exist in the source project.` },
    { project_id: t.projectId, errors: 'The target is the source project.' },
  ]);
  assert.deepEqual(await cohortsOf(target), []);
});

test('cohorts referencing each other in a loop (stored so by hand) fail the target without looping', async () => {
  const a = await newCohort(t.projectId, { name: 'Loop A', filters: person('loop', 'a') });
  const b = await newCohort(t.projectId, { name: 'Loop B', filters: refersTo(a.id) });
  await newFlag('looped', cohortCondition(b.id));
  await t.db.pool.query('UPDATE cohorts SET filters = $2 WHERE id = $1', [a.id, JSON.stringify(refersTo(b.id))]);
  const target = await otherProject(t);
  const answer = await copy('looped', [target]);
  assert.equal(answer.success.length, 0);
  assert.match(answer.failed[0].errors, /loop/);
  assert.deepEqual(await cohortsOf(target), []);
});

test('a flag dependency names the target flag of the same key; without it the target fails', async () => {
  const base = await newFlag('dependency-base', { groups: [{ properties: [], rollout_percentage: 100 }] });
  const dependencyOn = (id: number) => ({
    groups: [{ properties: [{ key: String(id), type: 'flag', value: true, operator: 'flag_evaluates_to' }], rollout_percentage: 100 }],
  });
  await newFlag('dependent', dependencyOn(base.id));
  const target = await otherProject(t);
  const refused = await copy('dependent', [target]);
  assert.deepEqual(refused.failed, [
    { project_id: target, errors: "The flag depends on flag 'dependency-base', which the target project does not have: copy that flag first." },
  ]);
  assert.equal(await flagOf(target, 'dependent'), undefined);

  assert.deepEqual((await copy('dependency-base', [target])).failed, []);
  const targetBase = await flagOf(target, 'dependency-base');
  assert.deepEqual((await copy('dependent', [target])).failed, []);
  assert.deepEqual((await flagOf(target, 'dependent'))?.filters.groups[0].properties[0].key, String(targetBase?.id));
});

test('two copies at once into one project create the cohort once', async () => {
  const cohort = await newCohort(t.projectId, { name: 'Raced cohort', filters: person('race', 'yes') });
  await newFlag('raced-a', cohortCondition(cohort.id));
  await newFlag('raced-b', cohortCondition(cohort.id));
  const target = await otherProject(t);
  const [a, b] = await Promise.all([copy('raced-a', [target]), copy('raced-b', [target])]);
  assert.deepEqual([...a.failed, ...b.failed], []);
  const created = (await cohortsOf(target)).filter((c) => c.name === 'Raced cohort');
  assert.equal(created.length, 1);
  assert.equal((await flagOf(target, 'raced-a'))?.filters.groups[0].properties[0].value, created[0].id);
  assert.equal((await flagOf(target, 'raced-b'))?.filters.groups[0].properties[0].value, created[0].id);
});
