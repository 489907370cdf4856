import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { surveyResponseCounts } from '../../src/surveys/responses/counts.ts';
import { archive, countsUrl, getJson, keyWith, sendEvents, setSurveyDates, statsUrl, surveyWith, type SurveyEvent } from './responses-fixtures.ts';
import { assertValidation, createSurvey, type Json } from './support.ts';

let t: TestApp;
after(() => t.close());

/**
 * P runs 2024-02-01 .. 2024-03-01: S1 (two partial events, one response), S2 (legacy, no
 * submission id), S3 (one event before the start, one inside: counts once) → 3; S4 (all before the
 * start) and S5 (after the end) do not count.
 * Q has no dates, created 2024-01-10: an event before its creation does not count; T1, T2 → 2.
 * R starts 2024-04-01; all its events are older → absent. Events of a survey that does not exist → absent.
 */
const ids = { P: '', Q: '', R: '' };
const uuids = { s1Latest: randomUUID(), s1First: randomUUID(), s2: randomUUID(), s3Before: randomUUID(), s3Inside: randomUUID() };
const missingSurvey = randomUUID();

before(async () => {
  t = await startTestApp();
  ids.P = await surveyWith(t, { created_at: '2024-01-01T00:00:00Z', start_date: '2024-02-01T00:00:00Z', end_date: '2024-03-01T00:00:00Z' });
  ids.Q = await surveyWith(t, { created_at: '2024-01-10T00:00:00Z', start_date: null, end_date: null });
  ids.R = await surveyWith(t, { created_at: '2024-01-01T00:00:00Z', start_date: '2024-04-01T00:00:00Z' });
  const s1 = randomUUID();
  const s3 = randomUUID();
  const s4 = randomUUID();
  const events: SurveyEvent[] = [
    { kind: 'sent', survey: ids.P, person: 'a', at: '2024-02-02T00:00:00Z', submission: s1, uuid: uuids.s1First, completed: false },
    { kind: 'sent', survey: ids.P, person: 'a', at: '2024-02-02T00:01:00Z', submission: s1, uuid: uuids.s1Latest },
    { kind: 'sent', survey: ids.P, person: 'b', at: '2024-02-03T00:00:00Z', uuid: uuids.s2 },
    { kind: 'sent', survey: ids.P, person: 'c', at: '2024-01-31T23:59:00Z', submission: s3, uuid: uuids.s3Before },
    { kind: 'sent', survey: ids.P, person: 'c', at: '2024-02-01T00:01:00Z', submission: s3, uuid: uuids.s3Inside },
    { kind: 'sent', survey: ids.P, person: 'd', at: '2024-01-20T00:00:00Z', submission: s4 },
    { kind: 'sent', survey: ids.P, person: 'd', at: '2024-01-21T00:00:00Z', submission: s4 },
    { kind: 'sent', survey: ids.P, person: 'e', at: '2024-03-01T00:00:01Z', submission: randomUUID() },
    { kind: 'shown', survey: ids.P, person: 'f', at: '2024-02-05T00:00:00Z' },
    { kind: 'dismissed', survey: ids.P, person: 'f', at: '2024-02-05T00:00:01Z' },
    { kind: 'sent', survey: ids.Q, person: 'g', at: '2024-01-09T00:00:00Z' },
    { kind: 'sent', survey: ids.Q, person: 'g', at: '2024-01-15T00:00:00Z', submission: randomUUID() },
    { kind: 'sent', survey: ids.Q, person: 'h', at: '2024-01-16T00:00:00Z', submission: randomUUID() },
    { kind: 'sent', survey: ids.R, person: 'i', at: '2024-03-15T00:00:00Z' },
    { kind: 'sent', survey: missingSurvey, person: 'j', at: '2024-02-15T00:00:00Z' },
  ];
  await sendEvents(t, events);
});

async function counts(query = '', payload?: Json): Promise<Json> {
  const response = await getJson(t, countsUrl(query), payload ? { payload } : {});
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

test('each survey counted inside its own window, de-duplicated by submission; surveys without responses and unknown surveys absent', async () => {
  assert.deepEqual(await counts(), { [ids.P]: 3, [ids.Q]: 2 });
});

test('the counts equal the sent totals of the per-survey stats', async () => {
  for (const [id, expected] of [
    [ids.P, 3],
    [ids.Q, 2],
  ] as const) {
    const response = await getJson(t, statsUrl(id));
    assert.equal(response.json().stats['survey sent'].total_count, expected);
  }
});

test('survey_ids: comma-separated, trimmed, empties dropped; unknown or foreign ids simply absent', async () => {
  assert.deepEqual(await counts(`?survey_ids=${ids.Q}`), { [ids.Q]: 2 });
  assert.deepEqual(await counts(`?survey_ids=${encodeURIComponent(` ${ids.P.toUpperCase()} ,, ${ids.Q},`)}`), { [ids.P]: 3, [ids.Q]: 2 });
  assert.deepEqual(await counts(`?survey_ids=${ids.R},${missingSurvey}`), {});
  assert.deepEqual(await counts('?survey_ids=,'), { [ids.P]: 3, [ids.Q]: 2 });
  const other = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Other' } });
  const foreign = await createSurvey(t, {}, other.json().id);
  assert.deepEqual(await counts(`?survey_ids=${foreign.id},${ids.Q}`), { [ids.Q]: 2 });
  assert.deepEqual(await counts('', { survey_ids: [ids.P] }), { [ids.P]: 3 });
  assert.deepEqual(await counts(`?survey_ids=${ids.Q}`, { survey_ids: ids.P }), { [ids.P]: 3 });
});

test('a malformed survey id is a 400 naming survey_ids', async () => {
  assertValidation(await getJson(t, countsUrl(`?survey_ids=${ids.P},nope`)), '“nope” is not a valid UUID.', 'survey_ids', 'invalid');
  assertValidation(await getJson(t, countsUrl(), { payload: { survey_ids: [12] } }), 'Expected a comma-separated list of survey ids.', 'survey_ids', 'invalid');
});

test('exclude_archived leaves out every archived response of the project; by default they count', async () => {
  await archive(t, ids.P, uuids.s1Latest);
  // S2's response archived under Q (one uuid, one row): still one of the project's archived responses.
  await archive(t, ids.Q, uuids.s2);
  // S3's event before the start is not its response inside the window: archiving it changes nothing.
  await archive(t, ids.P, uuids.s3Before);
  try {
    assert.deepEqual(await counts(), { [ids.P]: 3, [ids.Q]: 2 });
    assert.deepEqual(await counts('?exclude_archived=true'), { [ids.P]: 1, [ids.Q]: 2 });
    assert.deepEqual(await counts('', { exclude_archived: true }), { [ids.P]: 1, [ids.Q]: 2 });
    await archive(t, ids.P, uuids.s3Inside);
    assert.deepEqual(await counts('?exclude_archived=True'), { [ids.Q]: 2 });
  } finally {
    for (const [survey, uuid] of [
      [ids.P, uuids.s1Latest],
      [ids.Q, uuids.s2],
      [ids.P, uuids.s3Before],
      [ids.P, uuids.s3Inside],
    ]) {
      await archive(t, survey, uuid, 'unarchive');
    }
  }
  assert.deepEqual(await counts('?exclude_archived=true'), { [ids.P]: 3, [ids.Q]: 2 });
});

test('the function the responses_limit job uses follows the survey windows as they change', async () => {
  assert.deepEqual(Object.fromEntries(await surveyResponseCounts(t.db.pool, 1, { excludeArchived: false })), { [ids.P]: 3, [ids.Q]: 2 });
  await setSurveyDates(t, ids.P, { start_date: '2024-01-01T00:00:00Z', end_date: null });
  await setSurveyDates(t, ids.R, { start_date: null, end_date: '2024-03-14T00:00:00Z' });
  try {
    // P now also holds S4 and S5; R ended before its only event.
    assert.deepEqual(Object.fromEntries(await surveyResponseCounts(t.db.pool, 1, { excludeArchived: false })), { [ids.P]: 5, [ids.Q]: 2 });
    assert.deepEqual(Object.fromEntries(await surveyResponseCounts(t.db.pool, 1, { surveyIds: [ids.Q], excludeArchived: true })), { [ids.Q]: 2 });
    assert.deepEqual(await surveyResponseCounts(t.db.pool, 1, { surveyIds: [], excludeArchived: false }), new Map());
  } finally {
    await setSurveyDates(t, ids.P, { start_date: '2024-02-01T00:00:00Z', end_date: '2024-03-01T00:00:00Z' });
    await setSurveyDates(t, ids.R, { start_date: '2024-04-01T00:00:00Z', end_date: null });
  }
});

test('new responses count at once; a retried event counts once', async () => {
  const event: SurveyEvent = { kind: 'sent', survey: ids.Q, person: 'k', at: '2024-01-20T00:00:00Z', uuid: randomUUID() };
  await sendEvents(t, [event]);
  await sendEvents(t, [event]);
  assert.deepEqual(await counts(`?survey_ids=${ids.Q}`), { [ids.Q]: 3 });
});

test('scopes and methods', async () => {
  const read = await keyWith(t, ['survey:read']);
  assert.equal((await getJson(t, countsUrl(), { key: read })).statusCode, 200);
  const flags = await keyWith(t, ['feature_flag:write', 'activity_log:read']);
  const denied = await getJson(t, countsUrl(), { key: flags });
  assert.equal(denied.statusCode, 403);
  assert.equal(denied.json().detail, "API key missing required scope 'survey:read'");
  assert.equal((await t.request({ method: 'POST', url: countsUrl(), payload: {} })).statusCode, 405);
});
