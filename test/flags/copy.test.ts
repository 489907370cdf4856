// copy_flags: one flag, by key, from a project into others of the organization.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { keyWith, otherProject } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { currentOrganizationId, foreignOrganization } from '../accounts/support.ts';
import { insertCohort } from '../sdk/support.ts';
import { assertValidation, createFlag, type Json } from './flag-client.ts';

let t: TestApp;
let organizationId: string;
before(async () => {
  t = await startTestApp();
  organizationId = await currentOrganizationId(t);
});
after(() => t.close());

const copy = (payload: Json, key?: string, organization = organizationId) =>
  t.request({ method: 'POST', url: `/api/organizations/${organization}/feature_flags/copy_flags/`, payload, key });
const flagIn = async (project: number, key: string) =>
  (await t.request({ method: 'GET', url: `/api/projects/${project}/feature_flags/?key=${key}` })).json().results[0];

test('creates the flag where the key is free, updates it where it is taken, reports targets it cannot reach', async () => {
  const staging = t.projectId;
  const production = await otherProject(t);
  const empty = await otherProject(t);
  const source = await createFlag(t, {
    key: 'promote-me',
    name: 'Promote me',
    filters: { groups: [{ properties: [{ key: 'plan', type: 'person', value: ['pro'], operator: 'exact' }], rollout_percentage: 25 }] },
    ensure_experience_continuity: true,
  });
  const old = (await t.request({ method: 'POST', url: `/api/projects/${production}/feature_flags/`, payload: { key: 'promote-me', active: false } })).json();
  const foreign = await foreignOrganization(t);

  const response = await copy({ feature_flag_key: 'promote-me', from_project: staging, target_project_ids: [production, empty, foreign.projectId, 999999] });
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json();
  assert.equal(body.success.length, 2);
  assert.deepEqual(body.failed, [
    { project_id: foreign.projectId, errors: 'Target project does not exist.' },
    { project_id: 999999, errors: 'Target project does not exist.' },
  ]);
  const updated = await flagIn(production, 'promote-me');
  assert.equal(updated.id, old.id, 'the existing flag is updated');
  assert.equal(updated.active, true);
  assert.equal(updated.version, 2);
  assert.deepEqual(updated.filters.groups, (source.filters as Json).groups);
  assert.equal(updated.ensure_experience_continuity, true);
  const created = await flagIn(empty, 'promote-me');
  assert.equal(created.name, 'Promote me');
  assert.equal(created.version, 1);
  assert.deepEqual(body.success.map((f: Json) => f.id).sort(), [old.id, created.id].sort());
});

test('bad requests: missing fields, unknown flag, the source as target, scope and organizations', async () => {
  const target = await otherProject(t);
  assertValidation(await copy({ feature_flag_key: 'x', from_project: t.projectId }), 'This field is required.', 'target_project_ids');
  assertValidation(await copy({ feature_flag_key: 'nope', from_project: t.projectId, target_project_ids: [target] }), 'Feature flag to copy does not exist.', 'feature_flag_key');
  const cohortId = await insertCohort(t, { name: 'Pros', properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }] }] } });
  await createFlag(t, { key: 'cohorted', filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortId }], rollout_percentage: 100 }] } });
  // The cohorts come along (test/flags/copy-with-cohorts.test.ts); copying into the source project is refused.
  const cohorted = await copy({ feature_flag_key: 'cohorted', from_project: t.projectId, target_project_ids: [t.projectId] });
  assert.equal(cohorted.statusCode, 200, cohorted.body);
  assert.deepEqual(cohorted.json().failed, [{ project_id: t.projectId, errors: 'The target is the source project.' }]);

  await createFlag(t, { key: 'scoped-copy' });
  const reader = await keyWith(t, ['feature_flag:read']);
  assert.equal((await copy({ feature_flag_key: 'scoped-copy', from_project: t.projectId, target_project_ids: [target] }, reader)).statusCode, 403);
  const foreign = await foreignOrganization(t);
  assert.equal((await copy({ feature_flag_key: 'scoped-copy', from_project: t.projectId, target_project_ids: [target] }, undefined, foreign.organizationId)).statusCode, 404);
  assert.equal(await flagIn(target, 'scoped-copy'), undefined);
  assert.equal((await t.request({ method: 'GET', url: `/api/organizations/${organizationId}/feature_flags/copy_flags/` })).statusCode, 405);
});

test('If-Match / If-None-Match: a target changed since the caller looked is not written, and says who changed it', async () => {
  const staging = t.projectId;
  const production = await otherProject(t);
  await createFlag(t, { key: 'guarded', name: 'Guarded', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  const request = (headers: Record<string, string>, targets = [production]) =>
    t.request({
      method: 'POST',
      url: `/api/organizations/${organizationId}/feature_flags/copy_flags/`,
      payload: { feature_flag_key: 'guarded', from_project: staging, target_project_ids: targets },
      headers,
    });
  const conflictWords = (by: string) => `The feature flag was updated by ${by} since you started editing it. Please refresh and try again.`;

  // Previewed with no flag there; someone creates one before the copy.
  const seen = (await t.request({ method: 'POST', url: `/api/projects/${production}/feature_flags/`, payload: { key: 'guarded', active: false } })).json();
  const absent = await request({ 'if-none-match': '*' });
  assert.equal(absent.statusCode, 200, absent.body);
  assert.deepEqual(absent.json(), { success: [], failed: [{ project_id: production, errors: conflictWords(seen.created_by.email) }] });
  assert.equal((await flagIn(production, 'guarded')).version, 1, 'nothing written');

  // Previewed at version 1; someone edits it (version 2) before the copy.
  const edited = await t.request({ method: 'PATCH', url: `/api/projects/${production}/feature_flags/${seen.id}/`, payload: { name: 'edited meanwhile' } });
  assert.equal(edited.json().version, 2);
  const stale = await request({ 'if-match': '"1"' });
  assert.deepEqual(stale.json().failed, [{ project_id: production, errors: conflictWords(seen.created_by.email) }]);
  const after = await flagIn(production, 'guarded');
  assert.equal(after.version, 2);
  assert.equal(after.name, 'edited meanwhile');
  assert.equal(after.active, false);

  // The version the caller saw now: written.
  const fresh = await request({ 'if-match': 'W/"2"' });
  assert.equal(fresh.json().failed.length, 0, fresh.body);
  assert.equal(fresh.json().success[0].version, 3);
  assert.equal((await flagIn(production, 'guarded')).active, true);

  // Previewed with a flag there; it is deleted before the copy: refused, not created anew.
  await t.request({ method: 'PATCH', url: `/api/projects/${production}/feature_flags/${seen.id}/`, payload: { deleted: true } });
  const gone = await request({ 'if-match': '"4"' });
  assert.deepEqual(gone.json().failed, [{ project_id: production, errors: conflictWords('another user') }]);
  assert.equal(await flagIn(production, 'guarded'), undefined);
  // And with no flag there, If-None-Match lets the copy create it.
  const created = await request({ 'if-none-match': '*' });
  assert.equal(created.json().success[0].version, 1, created.body);

  // Hostile or ambiguous preconditions are a 400, and nothing is written.
  const other = await otherProject(t);
  for (const [headers, targets] of [
    [{ 'if-match': '"1"' }, [production, other]],
    [{ 'if-match': 'yesterday' }, [other]],
    [{ 'if-none-match': '"3"' }, [other]],
    [{ 'if-match': '"1"', 'if-none-match': '*' }, [other]],
  ] as const) {
    const refused = await request(headers, [...targets]);
    assert.equal(refused.statusCode, 400, `${JSON.stringify(headers)}: ${refused.body}`);
    assert.equal(refused.json().type, 'validation_error');
  }
  assert.equal(await flagIn(other, 'guarded'), undefined);
});
