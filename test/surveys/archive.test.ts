import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { getJson, keyWith, NOT_FOUND } from './responses-fixtures.ts';
import { assertValidation, createSurvey, surveysUrl } from './support.ts';

let t: TestApp;
let surveyId: string;
let otherSurveyId: string;

before(async () => {
  t = await startTestApp();
  surveyId = (await createSurvey(t)).id as string;
  otherSurveyId = (await createSurvey(t)).id as string;
});
after(() => t.close());

const actionUrl = (survey: string, uuid: string, action: 'archive' | 'unarchive') => `${surveysUrl()}${survey}/responses/${uuid}/${action}/`;
const post = (survey: string, uuid: string, action: 'archive' | 'unarchive', key?: string) =>
  t.request({ method: 'POST', url: actionUrl(survey, uuid, action), ...(key ? { key } : {}) });

async function archivedList(survey: string): Promise<string[]> {
  const response = await getJson(t, `${surveysUrl()}${survey}/archived-response-uuids/`);
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as string[]).sort();
}

async function responseActivity(survey: string): Promise<Array<{ activity: string; item_id: string; scope: string; detail: Record<string, unknown> }>> {
  const { rows } = await t.db.pool.query(
    `SELECT activity, item_id, scope, detail FROM activity_log
      WHERE item_id = $1 AND activity IN ('response_archived', 'response_unarchived') ORDER BY created_at, id`,
    [survey],
  );
  return rows;
}

test('archive: 200 {response_uuid, archived: true}, listed, one activity entry; again: same answer, nothing more', async () => {
  const uuid = randomUUID();
  const first = await post(surveyId, uuid, 'archive');
  assert.equal(first.statusCode, 200, first.body);
  assert.deepEqual(first.json(), { response_uuid: uuid, archived: true });
  const again = await post(surveyId, uuid.toUpperCase(), 'archive');
  assert.deepEqual(again.json(), { response_uuid: uuid, archived: true });
  assert.deepEqual(await archivedList(surveyId), [uuid]);
  assert.deepEqual(await archivedList(otherSurveyId), []);
  assert.deepEqual(await responseActivity(surveyId), [
    {
      activity: 'response_archived',
      item_id: surveyId,
      scope: 'Survey',
      detail: { changes: null, trigger: null, type: null, name: `Response ${uuid}`, short_id: null },
    },
  ]);
  const page = await getJson(t, `${surveysUrl()}${surveyId}/activity/`);
  assert.equal(page.statusCode, 200, page.body);
  const entry = page.json().results.find((e: { activity: string }) => e.activity === 'response_archived');
  assert.equal(entry.detail.name, `Response ${uuid}`);
  assert.equal(entry.detail.changes, null);

  const unarchived = await post(surveyId, uuid, 'unarchive');
  assert.equal(unarchived.statusCode, 200);
  assert.deepEqual(unarchived.json(), { response_uuid: uuid, archived: false });
  assert.deepEqual(await archivedList(surveyId), []);
  const twice = await post(surveyId, uuid, 'unarchive');
  assert.deepEqual(twice.json(), { response_uuid: uuid, archived: false });
  assert.deepEqual(
    (await responseActivity(surveyId)).map((e) => [e.activity, e.detail.name, e.detail.changes]),
    [
      ['response_archived', `Response ${uuid}`, null],
      ['response_unarchived', `Response ${uuid}`, null],
    ],
  );
});

test('unarchiving a uuid that was never archived: 200, no activity', async () => {
  const before = (await responseActivity(otherSurveyId)).length;
  const response = await post(otherSurveyId, randomUUID(), 'unarchive');
  assert.equal(response.statusCode, 200);
  assert.equal(response.json().archived, false);
  assert.equal((await responseActivity(otherSurveyId)).length, before);
});

test('the list holds every archived uuid of the survey, and only of it', async () => {
  const mine = [randomUUID(), randomUUID(), randomUUID()];
  for (const uuid of mine) await post(surveyId, uuid, 'archive');
  await post(otherSurveyId, randomUUID(), 'archive');
  assert.deepEqual(await archivedList(surveyId), [...mine].sort());
  assert.equal((await archivedList(otherSurveyId)).length, 1);
});

test('a malformed response uuid is a 400 in the standard error body; nothing stored', async () => {
  const count = async () => (await t.db.pool.query('SELECT count(*)::int AS n FROM survey_response_archives')).rows[0].n as number;
  const stored = await count();
  for (const action of ['archive', 'unarchive'] as const) {
    assertValidation(await post(surveyId, 'not-a-uuid', action), 'Invalid UUID format', 'response_uuid', 'invalid');
  }
  assert.equal(await count(), stored);
});

test('unknown, non-uuid and other projects’ surveys are 404', async () => {
  for (const survey of [randomUUID(), '12345']) {
    for (const action of ['archive', 'unarchive'] as const) {
      const response = await post(survey, randomUUID(), action);
      assert.equal(response.statusCode, 404, `${survey} ${action}`);
      assert.deepEqual(response.json(), NOT_FOUND);
    }
    assert.equal((await getJson(t, `${surveysUrl()}${survey}/archived-response-uuids/`)).statusCode, 404);
  }
  const other = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Other' } });
  const foreign = (await createSurvey(t, {}, other.json().id)).id as string;
  assert.equal((await post(foreign, randomUUID(), 'archive')).statusCode, 404);
  const viaOtherProject = await t.request({ method: 'POST', url: `${surveysUrl(other.json().id)}${surveyId}/responses/${randomUUID()}/archive/` });
  assert.equal(viaOtherProject.statusCode, 404);
});

test('a body is accepted and ignored; a body that is not JSON is a 400', async () => {
  const uuid = randomUUID();
  const withBody = await t.request({ method: 'POST', url: actionUrl(surveyId, uuid, 'archive'), payload: { name: 'ignored', questions: [] } });
  assert.deepEqual(withBody.json(), { response_uuid: uuid, archived: true });
  const broken = await t.request({ method: 'POST', url: actionUrl(surveyId, uuid, 'unarchive'), payload: '{', headers: { 'content-type': 'application/json' } });
  assert.equal(broken.statusCode, 400);
  assert.equal(broken.json().code, 'parse_error');
  assert.ok((await archivedList(surveyId)).includes(uuid));
});

test('scopes: survey:write archives, survey:read reads the list; not the other way round', async () => {
  const read = await keyWith(t, ['survey:read']);
  const write = await keyWith(t, ['survey:write']);
  const uuid = randomUUID();
  const denied = await post(surveyId, uuid, 'archive', read);
  assert.equal(denied.statusCode, 403);
  assert.equal(denied.json().detail, "API key missing required scope 'survey:write'");
  assert.equal((await post(surveyId, uuid, 'unarchive', read)).statusCode, 403);
  assert.ok(!(await archivedList(surveyId)).includes(uuid));
  assert.equal((await post(surveyId, uuid, 'archive', write)).statusCode, 200);
  assert.equal((await getJson(t, `${surveysUrl()}${surveyId}/archived-response-uuids/`, { key: read })).statusCode, 200);
  const flags = await keyWith(t, ['feature_flag:write']);
  assert.equal((await getJson(t, `${surveysUrl()}${surveyId}/archived-response-uuids/`, { key: flags })).statusCode, 403);
});

test('other methods are 405', async () => {
  assert.equal((await t.request({ method: 'GET', url: actionUrl(surveyId, randomUUID(), 'archive') })).statusCode, 405);
  assert.equal((await t.request({ method: 'POST', url: `${surveysUrl()}${surveyId}/archived-response-uuids/` })).statusCode, 405);
});
