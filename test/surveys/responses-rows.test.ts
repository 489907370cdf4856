/**
 * What the responses list reads from survey_events (migration 015): a `survey sent` event's
 * distinct id, answers and completeness kept on its row by ingestion, by the rebuild and by the
 * migration's backfill, and the two ways a search reads (few matches by key, or a walk in order).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { withBoundedRead } from '../../src/db/bounded-read.ts';
import { parseResponseListArgs } from '../../src/surveys/responses/list-args.ts';
import { FEW_SEARCH_MATCHES, LIST_TIMEOUT_MS, prepareReading } from '../../src/surveys/responses/list.ts';
import { loadResponsePage } from '../../src/surveys/responses/list-store.ts';
import { requireSurvey } from '../../src/surveys/read-store.ts';
import { questionsOf } from '../../src/surveys/summaries/questions.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { archive, getJson, sendBatch, setSurveyDates } from './responses-fixtures.ts';
import { createSurvey, surveysUrl, type Json } from './support.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const QUESTIONS = [
  { id: 'q-open', type: 'open', question: 'What could we do better?' },
  { id: 'q-rate', type: 'rating', question: 'How likely, 0 to 10?', scale: 10, display: 'number' },
  { id: 'q-multi', type: 'multiple_choice', question: 'Which?', choices: ['Speed', 'Price', 'Other'], hasOpenChoice: true },
];

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

async function launchedSurvey(): Promise<string> {
  const survey = await createSurvey(t, { questions: QUESTIONS });
  await setSurveyDates(t, survey.id, { created_at: ago(40 * DAY), start_date: ago(30 * DAY) });
  return survey.id as string;
}

function sent(surveyId: string, person: string, at: string, properties: Json, uuid: string = randomUUID()): Json {
  return { event: 'survey sent', distinct_id: person, uuid, timestamp: at, properties: { $survey_id: surveyId, ...properties } };
}

interface StoredRow {
  uuid: string;
  kind: number;
  distinct_id: string | null;
  answers: Json | null;
  incomplete: boolean | null;
  superseded_at: string | null;
}

async function storedRows(surveyId: string): Promise<StoredRow[]> {
  const { rows } = await t.db.pool.query<StoredRow>(
    'SELECT uuid::text, kind, distinct_id, answers, incomplete, superseded_at::text FROM survey_events WHERE project_id = $1 AND survey_id = $2 ORDER BY uuid',
    [t.projectId, surveyId],
  );
  return rows;
}

async function search(surveyId: string, term: string, extra = ''): Promise<string[]> {
  const response = await getJson(t, `${surveysUrl()}${surveyId}/responses/?search=${encodeURIComponent(term)}${extra}`);
  assert.equal(response.statusCode, 200, response.body);
  return response.json().results.map((r: Json) => r.uuid);
}

/** The same page read both ways: by the few matches' keys (when the term allows it) and by walking in order. */
async function bothWays(surveyId: string, query: Record<string, string>): Promise<{ byKey: string[] | null; walking: string[] }> {
  const survey = await requireSurvey(t.db.pool, t.projectId, surveyId);
  const questions = questionsOf(survey.questions);
  const args = parseResponseListArgs(query, new Date());
  return withBoundedRead(
    t.db.pool,
    LIST_TIMEOUT_MS,
    async (client) => {
      const reading = await prepareReading(client, survey, questions, args);
      assert.ok(reading);
      const page = (searchMatches: string[] | null) =>
        loadResponsePage(client, { ...reading, searchMatches, after: null, ascending: false, limit: 100 }).then((rows) => rows.map((r) => r.uuid));
      return { byKey: reading.searchMatches === null ? null : await page(reading.searchMatches), walking: await page(null) };
    },
    { walkIndexOrder: true },
  );
}

describe('a survey sent event on its survey_events row', () => {
  let surveyId: string;
  const events: Json[] = [];

  before(async () => {
    surveyId = await launchedSurvey();
    events.push(
      sent(surveyId, 'ada', ago(3 * DAY), { $survey_completed: true, '$survey_response_q-open': 'Fast', '$survey_response_q-rate': 9, '$survey_response_q-multi': ['Speed', 'Other: x'], $lib: 'web' }),
      sent(surveyId, 'bob', ago(2 * DAY), { $survey_completed: false, '$survey_response_q-open': null, $survey_response_1: '7', $current_url: 'https://x' }),
      sent(surveyId, 'cy', ago(DAY), { $survey_completed: 'false', $survey_response: { nested: ['a', 1] } }),
      sent(surveyId, 'dee', ago(DAY / 2), {}),
    );
    await sendBatch(t, [
      ...events,
      { event: 'survey shown', distinct_id: 'ada', uuid: randomUUID(), timestamp: ago(4 * DAY), properties: { $survey_id: surveyId } },
      { event: 'survey dismissed', distinct_id: 'eve', uuid: randomUUID(), timestamp: ago(DAY), properties: { $survey_id: surveyId, $survey_response: 'not a response' } },
    ]);
  });

  test('ingestion keeps the distinct id, every $survey_response… property as sent, and whether it was incomplete', async () => {
    const rows = await storedRows(surveyId);
    assert.equal(rows.length, 6);
    for (const event of events) {
      const row = rows.find((r) => r.uuid === event.uuid);
      assert.ok(row, `row of ${event.distinct_id}`);
      const properties = event.properties as Json;
      const answers = Object.fromEntries(Object.entries(properties).filter(([key]) => key.startsWith('$survey_response')));
      assert.equal(row.distinct_id, event.distinct_id);
      assert.deepEqual(row.answers, answers);
      const completed = properties.$survey_completed;
      assert.equal(row.incomplete, completed !== undefined && String(completed) !== 'true');
    }
    // Shown and dismissed rows carry none of it.
    for (const row of rows.filter((r) => r.kind !== 3)) assert.deepEqual([row.distinct_id, row.answers, row.incomplete, row.superseded_at], [null, null, null, null]);
  });

  test('the rebuild from events and the backfill of migration 015 derive the same rows', async () => {
    const ingested = await storedRows(surveyId);
    await t.db.pool.query('SELECT survey_responses_rebuild($1)', [t.projectId]);
    assert.deepEqual(await storedRows(surveyId), ingested);

    await t.db.pool.query('UPDATE survey_events SET distinct_id = NULL, answers = NULL, incomplete = NULL, superseded_at = NULL WHERE project_id = $1', [t.projectId]);
    const migration = readFileSync(new URL('../../src/db/migrations/015_survey_response_rows.sql', import.meta.url), 'utf8');
    const backfill = migration.slice(migration.indexOf('DO $$'), migration.indexOf('-- Search in open answers'));
    await t.db.pool.query(backfill);
    assert.deepEqual(await storedRows(surveyId), ingested);
  });

  test('the list shows what the events say', async () => {
    const response = await getJson(t, `${surveysUrl()}${surveyId}/responses/`);
    assert.equal(response.statusCode, 200, response.body);
    const byPerson = Object.fromEntries(response.json().results.map((r: Json) => [r.distinct_id, r]));
    assert.deepEqual(byPerson.ada.answers, { 'q-open': 'Fast', 'q-rate': 9, 'q-multi': ['Speed', 'Other: x'] });
    assert.equal(byPerson.ada.partial, false);
    // A null id-based answer falls back to the index key.
    assert.deepEqual(byPerson.bob.answers, { 'q-open': null, 'q-rate': '7', 'q-multi': null });
    assert.equal(byPerson.bob.partial, true);
    assert.deepEqual(byPerson.cy.answers, { 'q-open': { nested: ['a', 1] }, 'q-rate': null, 'q-multi': null });
    assert.equal(byPerson.cy.partial, true);
    assert.deepEqual(byPerson.dee.answers, { 'q-open': null, 'q-rate': null, 'q-multi': null });
    assert.equal(byPerson.dee.partial, false);
  });
});

describe('a submission whose events arrive out of order, in separate batches', () => {
  test('each event is superseded by the next one in time; the list shows the latest inside the window', async () => {
    const surveyId = await launchedSurvey();
    const submission = randomUUID();
    const at = [ago(5 * 3_600_000), ago(4 * 3_600_000), ago(3 * 3_600_000)];
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    const event = (uuid: string, time: string, text: string) =>
      sent(surveyId, 'ooo', time, { $survey_submission_id: submission, $survey_completed: false, '$survey_response_q-open': text }, uuid);
    await sendBatch(t, [event(third, at[2], 'three')]);
    await sendBatch(t, [event(first, at[0], 'one')]);
    await sendBatch(t, [event(second, at[1], 'two'), event(first, at[0], 'one')]);
    const rows = await storedRows(surveyId);
    const supersededAt = (uuid: string) => rows.find((r) => r.uuid === uuid)?.superseded_at ?? null;
    assert.equal(new Date(supersededAt(first) ?? '').toISOString(), at[1]);
    assert.equal(new Date(supersededAt(second) ?? '').toISOString(), at[2]);
    assert.equal(supersededAt(third), null);
    const page = async (query: string) => {
      const response = await getJson(t, `${surveysUrl()}${surveyId}/responses/${query}`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json().results.map((r: Json) => r.uuid);
    };
    assert.deepEqual(await page(''), [third]);
    assert.deepEqual(await page(`?date_to=${encodeURIComponent(at[1])}`), [second]);
    assert.deepEqual(await page(`?date_to=${encodeURIComponent(new Date(Date.parse(at[1]) - 1000).toISOString())}`), [first]);
    // The rebuild derives the same chain.
    await t.db.pool.query('SELECT survey_responses_rebuild($1)', [t.projectId]);
    assert.deepEqual(await storedRows(surveyId), rows);
  });
});

describe('search', () => {
  let surveyId: string;
  const uuids: Record<string, string> = {};
  const OPEN_ANSWERS: Record<string, string> = {
    quotes: 'More "exports", fewer clicks',
    percent: 'Works 100% of the time',
    underscore: 'see snake_case_name here',
    backslash: 'paths like C:\\temp\\logs',
    plain: 'Dark mode please',
  };

  before(async () => {
    surveyId = await launchedSurvey();
    const batch: Json[] = [];
    let minutes = 100;
    for (const [name, text] of Object.entries(OPEN_ANSWERS)) {
      uuids[name] = randomUUID();
      batch.push(sent(surveyId, name, ago(DAY + (minutes -= 10) * 60_000), { '$survey_response_q-open': text, '$survey_response_q-rate': '100' }, uuids[name]));
    }
    // The open choice's text is searched too; a rating is not.
    uuids.choice = randomUUID();
    batch.push(sent(surveyId, 'choice', ago(DAY / 2), { '$survey_response_q-multi': ['Speed', 'exports by mail'], '$survey_response_q-rate': 'exports' }, uuids.choice));
    // One submission, two events: the later one (without the word) is the response, except before it.
    uuids.first = randomUUID();
    uuids.second = randomUUID();
    const submission = randomUUID();
    batch.push(sent(surveyId, 'sub', ago(6 * 3_600_000), { $survey_submission_id: submission, $survey_completed: false, '$survey_response_q-open': 'halfway thoughts' }, uuids.first));
    batch.push(sent(surveyId, 'sub', ago(3 * 3_600_000), { $survey_submission_id: submission, $survey_completed: true, '$survey_response_q-open': 'final words' }, uuids.second));
    await sendBatch(t, batch);
  });

  test('quotes, percent, underscore and backslash are literal, case-insensitive, in open answers only', async () => {
    assert.deepEqual(await search(surveyId, '"EXPORTS"'), [uuids.quotes]);
    assert.deepEqual(await search(surveyId, 'exports'), [uuids.choice, uuids.quotes]);
    assert.deepEqual(await search(surveyId, '100%'), [uuids.percent]);
    assert.deepEqual(await search(surveyId, '0%'), [uuids.percent]);
    assert.deepEqual(await search(surveyId, 'snake_case'), [uuids.underscore]);
    assert.deepEqual(await search(surveyId, 'e_c'), [uuids.underscore]);
    assert.deepEqual(await search(surveyId, 'C:\\temp\\'), [uuids.backslash]);
    assert.deepEqual(await search(surveyId, '\\'), [uuids.backslash]);
    assert.deepEqual(await search(surveyId, '%_%'), []);
    assert.deepEqual(await search(surveyId, "'; DROP TABLE events; --"), []);
    // '100' is only a rating here (a rating is not an open answer).
    assert.deepEqual(await search(surveyId, '100'), [uuids.percent]);
  });

  test('by key and walking in order answer the same, whatever the term', async () => {
    for (const term of ['"exports"', 'exports', '100%', 'snake_case', 'C:\\temp', 'mode', 'words', 'halfway', 'nothing matches this']) {
      const { byKey, walking } = await bothWays(surveyId, { search: term });
      assert.ok(byKey, `"${term}" is read by key`);
      assert.deepEqual(byKey, walking, term);
    }
    // Too short for trigrams: walked.
    assert.equal((await bothWays(surveyId, { search: '%' })).byKey, null);
    assert.ok(FEW_SEARCH_MATCHES >= 100);
  });

  test('a submission is searched in its latest event inside the window (date filters)', async () => {
    assert.deepEqual(await search(surveyId, 'halfway'), []);
    assert.deepEqual(await search(surveyId, 'final words'), [uuids.second]);
    const before = encodeURIComponent(ago(4 * 3_600_000));
    assert.deepEqual(await search(surveyId, 'halfway', `&date_to=${before}`), [uuids.first]);
    assert.deepEqual(await search(surveyId, 'final', `&date_to=${before}`), []);
    assert.deepEqual(await search(surveyId, 'exports', '&date_from=-1d'), [uuids.choice]);
    assert.deepEqual(await search(surveyId, 'exports', `&date_from=-1d&date_to=${before}`), [uuids.choice]);
    const { byKey, walking } = await bothWays(surveyId, { search: 'halfway', date_to: ago(4 * 3_600_000) });
    assert.deepEqual(byKey, [uuids.first]);
    assert.deepEqual(walking, [uuids.first]);
  });

  test('archived matches are marked, left out with exclude_archived, and back once unarchived', async () => {
    await archive(t, surveyId, uuids.quotes);
    const response = await getJson(t, `${surveysUrl()}${surveyId}/responses/?search=exports`);
    assert.deepEqual(
      response.json().results.map((r: Json) => [r.uuid, r.archived]),
      [
        [uuids.choice, false],
        [uuids.quotes, true],
      ],
    );
    assert.deepEqual(await search(surveyId, 'exports', '&exclude_archived=true'), [uuids.choice]);
    await archive(t, surveyId, uuids.quotes, 'unarchive');
    assert.deepEqual(await search(surveyId, 'exports', '&exclude_archived=true'), [uuids.choice, uuids.quotes]);
  });

  test('the CSV applies the search the same way', async () => {
    const response = await t.request({ method: 'GET', url: `${surveysUrl()}${surveyId}/responses/?format=csv&search=${encodeURIComponent('"exports"')}` });
    assert.equal(response.statusCode, 200, response.body);
    const lines = response.body.split('\r\n').filter((line) => line !== '');
    assert.equal(lines.length, 2);
    assert.ok(lines[1].startsWith(`${uuids.quotes},`));
    assert.ok(lines[1].includes('"More ""exports"", fewer clicks"'));
  });
});
