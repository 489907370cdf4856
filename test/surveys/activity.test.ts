import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createSurvey, keyWith, otherProject, patchSurvey, surveysUrl, type Json } from './support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

async function activityOf(path: string, key?: string): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${path}`, key });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

describe('survey activity', () => {
  test('created, updated (changed fields), deleted; newest first; PostHog entry shape', async () => {
    const survey = await createSurvey(t, { name: 'Logged', description: 'one' });
    const patched = await patchSurvey(t, survey.id, { name: 'Logged again', description: 'two', start_date: '2024-01-01T00:00:00Z' });
    assert.equal(patched.statusCode, 200, patched.body);
    const page = await activityOf(`${survey.id}/activity/`);
    assert.equal(page.total_count, 2);
    const [updated, created] = page.results as Json[];
    assert.equal(created.activity, 'created');
    assert.equal(created.scope, 'Survey');
    assert.equal(created.item_id, survey.id);
    assert.equal(created.detail.name, 'Logged');
    assert.deepEqual(created.detail.changes, []);
    assert.equal(created.user.email, 'admin@bellwether.local');
    assert.match(created.created_at, /Z$/);
    for (const key of ['id', 'user', 'activity', 'scope', 'item_id', 'detail', 'created_at']) assert.ok(key in created, key);
    for (const key of ['changes', 'trigger', 'name', 'short_id', 'type']) assert.ok(key in created.detail, `detail.${key}`);

    assert.equal(updated.activity, 'updated');
    assert.equal(updated.detail.name, 'Logged again');
    const changes = Object.fromEntries((updated.detail.changes as Json[]).map((c) => [c.field, c]));
    assert.deepEqual(changes.name, { type: 'Survey', action: 'changed', field: 'name', before: 'Logged', after: 'Logged again' });
    assert.deepEqual(changes.description, { type: 'Survey', action: 'changed', field: 'description', before: 'one', after: 'two' });
    assert.equal(changes.start_date.action, 'created');
    assert.equal(new Date(changes.start_date.after).toISOString(), '2024-01-01T00:00:00.000Z');
    assert.ok(!('created_at' in changes) && !('updated_at' in changes));

    const deleted = await t.request({ method: 'DELETE', url: `${surveysUrl(t.projectId)}${survey.id}/` });
    assert.equal(deleted.statusCode, 204);
    const project = await activityOf('activity/');
    const forSurvey = (project.results as Json[]).filter((e) => e.item_id === survey.id);
    assert.deepEqual(forSurvey.map((e) => e.activity), ['deleted', 'updated', 'created']);
    assert.equal(forSurvey[0].detail.name, 'Logged again');
    // The survey is gone: its own activity endpoint is a 404, the project's still lists it.
    const gone = await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${survey.id}/activity/` });
    assert.equal(gone.statusCode, 404);
  });

  test('a PATCH that changes nothing writes no entry', async () => {
    const survey = await createSurvey(t, { description: 'same' });
    await patchSurvey(t, survey.id, { description: 'same' });
    assert.equal((await activityOf(`${survey.id}/activity/`)).total_count, 1);
  });

  test('the project activity lists every survey of this project only, paged by page/limit', async () => {
    const project = await otherProject(t);
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(await createSurvey(t, { name: `Paged ${i}` }, project));
    await createSurvey(t, { name: 'Not in that project' });
    const url = (query: string) => `${surveysUrl(project)}activity/${query}`;
    const first = await t.request({ method: 'GET', url: url('?limit=2') });
    assert.equal(first.statusCode, 200, first.body);
    const body = first.json();
    assert.equal(body.total_count, 3);
    assert.equal(body.results.length, 2);
    assert.deepEqual(body.results.map((e: Json) => e.detail.name), ['Paged 2', 'Paged 1']);
    assert.match(body.next, /page=2/);
    assert.match(body.next, /limit=2/);
    assert.equal(body.previous, null);
    const second = (await t.request({ method: 'GET', url: url('?limit=2&page=2') })).json();
    assert.deepEqual(second.results.map((e: Json) => e.detail.name), ['Paged 0']);
    assert.equal(second.next, null);
    assert.match(second.previous, /page=1/);
    const defaults = (await t.request({ method: 'GET', url: url('') })).json();
    assert.equal(defaults.results.length, 3, 'default limit 10');
  });

  test('the per-survey activity is filtered to that survey', async () => {
    const a = await createSurvey(t);
    const b = await createSurvey(t);
    await patchSurvey(t, b.id, { description: 'b changed' });
    const page = await activityOf(`${a.id}/activity/`);
    assert.deepEqual((page.results as Json[]).map((e) => e.item_id), [a.id]);
  });

  test('scope activity_log:read; unknown, other-project and malformed ids are 404', async () => {
    const survey = await createSurvey(t);
    const surveysOnly = await keyWith(t, ['survey:write']);
    const logReader = await keyWith(t, ['activity_log:read']);
    for (const path of [`${survey.id}/activity/`, 'activity/']) {
      const denied = await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${path}`, key: surveysOnly });
      assert.equal(denied.statusCode, 403, path);
      assert.equal(denied.json().detail, "API key missing required scope 'activity_log:read'");
      await activityOf(path, logReader);
    }
    const project = await otherProject(t);
    const elsewhere = await createSurvey(t, {}, project);
    for (const id of [elsewhere.id, '01890000-0000-7000-8000-000000000000', '12345']) {
      const response = await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${id}/activity/` });
      assert.equal(response.statusCode, 404, id);
    }
  });

  test('archiving and flag changes are logged on the survey', async () => {
    const survey = await createSurvey(t, {
      targeting_flag_filters: { groups: [{ properties: [{ key: 'email', value: '@a.com', operator: 'icontains', type: 'person' }], rollout_percentage: 10 }] },
    });
    await patchSurvey(t, survey.id, { archived: true, remove_targeting_flag: true });
    const [entry] = (await activityOf(`${survey.id}/activity/`)).results as Json[];
    const fields = (entry.detail.changes as Json[]).map((c) => c.field).sort();
    assert.deepEqual(fields, ['archived', 'targeting_flag']);
  });
});
