import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { keyWith, NOT_FOUND, projectToken } from './responses-fixtures.ts';
import { assertValidation, createSurvey, getSurvey, otherProject, patchSurvey, surveysUrl, type Json } from './support.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const TARGETING = { groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }] };

const act = (id: unknown, action: 'launch' | 'stop', options: { key?: string; projectId?: number } = {}) =>
  t.request({ method: 'POST', url: `${surveysUrl(options.projectId ?? t.projectId)}${id}/${action}/`, ...(options.key ? { key: options.key } : {}) });

async function flagActive(id: unknown): Promise<boolean> {
  const { rows } = await t.db.pool.query('SELECT active FROM feature_flags WHERE id = $1', [id]);
  return rows[0].active;
}

async function updates(surveyId: unknown): Promise<Json[]> {
  const { rows } = await t.db.pool.query(
    `SELECT detail FROM activity_log WHERE scope = 'Survey' AND item_id = $1 AND activity = 'updated' ORDER BY created_at, id`,
    [surveyId],
  );
  return rows.map((row) => row.detail);
}

async function feedIds(): Promise<{ id: string; start_date: string | null; end_date: string | null }[]> {
  const response = await t.request({ method: 'GET', url: `/api/surveys/?token=${await projectToken(t)}`, key: null });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().surveys;
}

test('launch: a draft starts now, its flags switch on, one activity entry, the feed shows the start; again → 400', async () => {
  const survey = await createSurvey(t, { targeting_flag_filters: TARGETING });
  assert.equal(survey.start_date, null);
  assert.equal(await flagActive(survey.targeting_flag.id), false);
  await feedIds();

  const startedBefore = Date.now();
  const response = await act(survey.id, 'launch');
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json();
  assert.equal(body.id, survey.id);
  const start = Date.parse(body.start_date);
  assert.ok(start >= startedBefore - 1000 && start <= Date.now() + 1000, body.start_date);
  assert.equal(body.end_date, null);
  assert.equal(await flagActive(survey.targeting_flag.id), true);
  assert.equal(await flagActive(body.internal_targeting_flag.id), true);

  const entries = await updates(survey.id);
  assert.equal(entries.length, 1);
  assert.deepEqual(
    entries[0].changes.map((c: Json) => [c.field, c.before, c.after]),
    [['start_date', null, body.start_date]],
  );
  const listed = (await feedIds()).find((s) => s.id === survey.id);
  assert.equal(listed?.start_date, body.start_date);

  const again = await act(survey.id, 'launch');
  assertValidation(again, 'Survey has already been launched.', 'start_date');
  assert.equal((await getSurvey(t, survey.id)).start_date, body.start_date);
  assert.equal((await updates(survey.id)).length, 1);
});

test('stop: a running survey ends now, flags off; again → 400; a stopped survey is not launched again; resume is a PATCH', async () => {
  const survey = await createSurvey(t, { targeting_flag_filters: TARGETING });
  const stopDraft = await act(survey.id, 'stop');
  assertValidation(stopDraft, 'Survey has not been launched yet.', 'start_date');
  assert.equal((await act(survey.id, 'launch')).statusCode, 200);

  const stopped = await act(survey.id, 'stop');
  assert.equal(stopped.statusCode, 200, stopped.body);
  const end = Date.parse(stopped.json().end_date);
  assert.ok(Math.abs(end - Date.now()) < 5000, stopped.json().end_date);
  assert.equal(await flagActive(survey.targeting_flag.id), false);
  const last = (await updates(survey.id)).at(-1) as Json;
  assert.deepEqual(last.changes.map((c: Json) => c.field), ['end_date']);

  assertValidation(await act(survey.id, 'stop'), 'Survey has already been stopped.', 'end_date');
  assertValidation(await act(survey.id, 'launch'), 'Survey has already been launched.', 'start_date');

  const resumed = await patchSurvey(t, survey.id, { end_date: null });
  assert.equal(resumed.statusCode, 200, resumed.body);
  assert.equal(await flagActive(survey.targeting_flag.id), true);
  assert.equal((await act(survey.id, 'stop')).statusCode, 200);
});

test('a survey scheduled to start later launches now; one scheduled to end later stops now', async () => {
  const later = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const scheduled = await createSurvey(t, { start_date: later });
  const stopEarly = await act(scheduled.id, 'stop');
  assertValidation(stopEarly, 'Survey has not been launched yet.', 'start_date');
  const launched = await act(scheduled.id, 'launch');
  assert.equal(launched.statusCode, 200, launched.body);
  assert.ok(Date.parse(launched.json().start_date) <= Date.now());

  const patched = await patchSurvey(t, scheduled.id, { end_date: later });
  assert.equal(patched.statusCode, 200, patched.body);
  const stopped = await act(scheduled.id, 'stop');
  assert.equal(stopped.statusCode, 200, stopped.body);
  assert.ok(Date.parse(stopped.json().end_date) <= Date.now());
});

test('an archived survey is not launched', async () => {
  const survey = await createSurvey(t, { archived: true });
  assertValidation(await act(survey.id, 'launch'), 'Archived surveys cannot be launched.', 'archived');
  assert.equal((await getSurvey(t, survey.id)).start_date, null);
});

test('unknown, malformed and other projects’ ids → 404; read-only key → 403; GET → 405', async () => {
  const survey = await createSurvey(t);
  for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '12345']) {
    const response = await act(id, 'launch');
    assert.equal(response.statusCode, 404, response.body);
    assert.deepEqual(response.json(), NOT_FOUND);
  }
  const other = await otherProject(t);
  const elsewhere = await act(survey.id, 'launch', { projectId: other });
  assert.equal(elsewhere.statusCode, 404, elsewhere.body);
  const readOnly = await keyWith(t, ['survey:read']);
  const denied = await act(survey.id, 'stop', { key: readOnly });
  assert.equal(denied.statusCode, 403, denied.body);
  const get = await t.request({ method: 'GET', url: `${surveysUrl()}${survey.id}/launch/` });
  assert.equal(get.statusCode, 405, get.body);
  assert.equal((await getSurvey(t, survey.id)).start_date, null);
});
