import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { rawNumbers, subtractedNumbers, type Window } from '../../src/surveys/responses/stats-store.ts';
import {
  archive,
  figures,
  getJson,
  globalStatsUrl,
  keyWith,
  NOT_FOUND,
  sendBatch,
  sendEvents,
  setSurveyDates,
  statsUrl,
  surveyWith,
  type SurveyEvent,
} from './responses-fixtures.ts';
import { assertValidation, createSurvey, type Json } from './support.ts';

let t: TestApp;
after(() => t.close());

const SHOWN = 'survey shown';
const DISMISSED = 'survey dismissed';
const SENT = 'survey sent';

/**
 * Survey A runs 2024-02-01 .. 2024-03-01. Persons u1..u5. In the window:
 * - shown: u1 twice, u2, u3 (4 events, 3 persons); u4 before the start, u5 after the end
 * - sent: u1's submission X twice (a partial, then the final: one response, the final one), u2's
 *   legacy event without submission id, sent twice with the same uuid (stored once)
 * - dismissed: u3 (and a partial dismissal of u3, counted nowhere), u2 (who also responded)
 */
const A = {
  id: '',
  s1: randomUUID(),
  e1: randomUUID(),
  e2: randomUUID(),
  e3: randomUUID(),
  d1: randomUUID(),
  d2: randomUUID(),
};
const X = randomUUID();

function surveyAEvents(id: string): SurveyEvent[] {
  return [
    { kind: 'shown', survey: id, person: 'u1', at: '2024-02-02T10:00:00Z', uuid: A.s1 },
    { kind: 'shown', survey: id, person: 'u2', at: '2024-02-03T10:00:00Z' },
    { kind: 'shown', survey: id, person: 'u3', at: '2024-02-04T10:00:00Z' },
    { kind: 'shown', survey: id, person: 'u1', at: '2024-02-05T10:00:00Z' },
    { kind: 'shown', survey: id, person: 'u4', at: '2024-01-20T10:00:00Z' },
    { kind: 'shown', survey: id, person: 'u5', at: '2024-03-05T10:00:00Z' },
    { kind: 'sent', survey: id, person: 'u1', at: '2024-02-02T10:01:00Z', uuid: A.e1, submission: X, completed: false },
    { kind: 'sent', survey: id, person: 'u1', at: '2024-02-02T10:02:00Z', uuid: A.e2, submission: X, completed: true },
    { kind: 'sent', survey: id, person: 'u2', at: '2024-02-03T10:05:00Z', uuid: A.e3 },
    { kind: 'sent', survey: id, person: 'u2', at: '2024-02-03T10:05:00Z', uuid: A.e3 },
    { kind: 'dismissed', survey: id, person: 'u3', at: '2024-02-04T10:01:00Z', uuid: A.d1, partial: false },
    { kind: 'dismissed', survey: id, person: 'u3', at: '2024-02-04T10:02:00Z', partial: true },
    { kind: 'dismissed', survey: id, person: 'u2', at: '2024-02-03T10:06:00Z', uuid: A.d2 },
    { kind: 'sent', survey: id, person: 'u5', at: '2024-03-05T10:00:00Z', submission: randomUUID() },
    { kind: 'sent', survey: id, person: 'u4', at: '2024-01-20T10:01:00Z' },
  ];
}

/** Every survey table of the project, the totals without their version. */
async function rollups() {
  const read = async (sql: string) => (await t.db.pool.query(sql)).rows;
  return {
    events: await read('SELECT * FROM survey_events ORDER BY uuid'),
    submissions: await read('SELECT * FROM survey_submissions ORDER BY survey_id, submission_key'),
    persons: await read('SELECT * FROM survey_persons ORDER BY survey_id, person_id'),
    totals: await read(
      `SELECT project_id, survey_id, shown_events, shown_persons, dismissed_events, dismissed_persons, sent_events, submissions,
              responding_persons, dismissed_and_sent_persons
         FROM survey_response_totals ORDER BY survey_id`,
    ),
  };
}

async function stats(id: string, query = '', payload?: Json): Promise<Json> {
  const response = await getJson(t, statsUrl(id, query), payload ? { payload } : {});
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

before(async () => {
  t = await startTestApp();
  A.id = await surveyWith(t, { created_at: '2024-01-01T00:00:00Z', start_date: '2024-02-01T00:00:00Z', end_date: '2024-03-01T00:00:00Z' });
  // Two requests: the retried legacy event arrives again in a second batch too.
  const events = surveyAEvents(A.id);
  await sendEvents(t, events.slice(0, 9));
  await sendEvents(t, events.slice(9));
});

describe('per-survey stats', () => {
  test('the window of the survey: de-duplicated submissions, partial dismissals left out, the dismissed adjustment, 33.33', async () => {
    const body = await stats(A.id);
    assert.deepEqual(body, {
      stats: {
        [SHOWN]: {
          total_count: 4,
          unique_persons: 3,
          first_seen: '2024-02-02T10:00:00Z',
          last_seen: '2024-02-05T10:00:00Z',
          unique_persons_only_seen: 0,
          total_count_only_seen: 0,
        },
        [DISMISSED]: {
          total_count: 2,
          unique_persons: 1,
          first_seen: '2024-02-03T10:06:00Z',
          last_seen: '2024-02-04T10:01:00Z',
          unique_persons_only_seen: 0,
          total_count_only_seen: 0,
        },
        [SENT]: {
          total_count: 2,
          unique_persons: 2,
          first_seen: '2024-02-02T10:02:00Z',
          last_seen: '2024-02-03T10:05:00Z',
          unique_persons_only_seen: 0,
          total_count_only_seen: 0,
        },
      },
      rates: { response_rate: 50, dismissal_rate: 50, unique_users_response_rate: 66.67, unique_users_dismissal_rate: 33.33 },
      survey_id: A.id,
      start_date: '2024-02-01T00:00:00.000Z',
      end_date: '2024-03-01T00:00:00.000Z',
    });
  });

  test('dates wider than the survey are clamped to it', async () => {
    const wide = await stats(A.id, '?date_from=2023-01-01T00:00:00Z&date_to=2025-01-01');
    const own = await stats(A.id);
    assert.deepEqual(wide, own);
  });

  test('date_from inside the window drops what came before it', async () => {
    const body = await stats(A.id, '?date_from=2024-02-03T00:00:00Z');
    assert.deepEqual(figures(body), {
      [SHOWN]: [3, 3, '2024-02-03T10:00:00Z', '2024-02-05T10:00:00Z'],
      [DISMISSED]: [2, 1, '2024-02-03T10:06:00Z', '2024-02-04T10:01:00Z'],
      [SENT]: [1, 1, '2024-02-03T10:05:00Z', '2024-02-03T10:05:00Z'],
    });
    assert.deepEqual(body.rates, { response_rate: 33.33, dismissal_rate: 66.67, unique_users_response_rate: 33.33, unique_users_dismissal_rate: 33.33 });
    const shown = (body.stats as Record<string, Json>)[SHOWN];
    assert.equal(shown.unique_persons_only_seen, 1);
    assert.equal(shown.total_count_only_seen, 0);
  });

  test('a submission cut by date_to counts its latest event inside the window', async () => {
    const body = await stats(A.id, '?date_to=2024-02-02T10:01:30Z');
    assert.deepEqual(figures(body), {
      [SHOWN]: [1, 1, '2024-02-02T10:00:00Z', '2024-02-02T10:00:00Z'],
      [DISMISSED]: [0, 0, null, null],
      [SENT]: [1, 1, '2024-02-02T10:01:00Z', '2024-02-02T10:01:00Z'],
    });
    assert.deepEqual(body.rates, { response_rate: 100, dismissal_rate: 0, unique_users_response_rate: 100, unique_users_dismissal_rate: 0 });
  });

  test('bounds are inclusive, offsets and date-only values are read as instants', async () => {
    const body = await stats(A.id, `?date_from=${encodeURIComponent('2024-02-02T11:00:00+01:00')}&date_to=2024-02-02T10:02:00Z`);
    assert.deepEqual(figures(body)[SHOWN], [1, 1, '2024-02-02T10:00:00Z', '2024-02-02T10:00:00Z']);
    assert.deepEqual(figures(body)[SENT], [1, 1, '2024-02-02T10:02:00Z', '2024-02-02T10:02:00Z']);
    const dateOnly = await stats(A.id, '?date_to=2024-02-03');
    assert.deepEqual(figures(dateOnly)[SHOWN], [1, 1, '2024-02-02T10:00:00Z', '2024-02-02T10:00:00Z']);
    const naive = await stats(A.id, '?date_to=2024-02-02T10:00:00');
    assert.deepEqual(figures(naive)[SHOWN], [1, 1, '2024-02-02T10:00:00Z', '2024-02-02T10:00:00Z']);
  });

  test('arguments in a JSON body of the GET count too, and win over the query string', async () => {
    const viaBody = await stats(A.id, '?date_from=2020-01-01T00:00:00Z', { date_from: '2024-02-03T00:00:00Z' });
    const viaQuery = await stats(A.id, '?date_from=2024-02-03T00:00:00Z');
    assert.deepEqual(viaBody, viaQuery);
    const bad = await getJson(t, statsUrl(A.id), { payload: { date_to: 'soon' } });
    assertValidation(bad, 'Invalid date format. Please use ISO 8601 format with timezone info (e.g. 2024-01-01T00:00:00Z or 2024-01-01T00:00:00+00:00)', 'date_to');
    const broken = await t.request({ method: 'GET', url: statsUrl(A.id), payload: '{"date_from":', headers: { 'content-type': 'application/json' } });
    assert.equal(broken.statusCode, 400);
    assert.equal(broken.json().code, 'parse_error');
  });

  test('a window after the survey ended holds nothing', async () => {
    const body = await stats(A.id, '?date_from=2024-03-02T00:00:00Z');
    assert.deepEqual(figures(body), { [SHOWN]: [0, 0, null, null], [DISMISSED]: [0, 0, null, null], [SENT]: [0, 0, null, null] });
    assert.deepEqual(body.rates, { response_rate: 0, dismissal_rate: 0, unique_users_response_rate: 0, unique_users_dismissal_rate: 0 });
  });

  test('exclude_archived drops an archived response (not replaced by an earlier event of its submission); without it, it counts', async () => {
    await archive(t, A.id, A.e2);
    try {
      const excluded = await stats(A.id, '?exclude_archived=TRUE');
      assert.deepEqual(figures(excluded)[SENT], [1, 1, '2024-02-03T10:05:00Z', '2024-02-03T10:05:00Z']);
      assert.deepEqual(figures(excluded)[DISMISSED], [2, 1, '2024-02-03T10:06:00Z', '2024-02-04T10:01:00Z']);
      assert.equal((excluded.rates as Json).response_rate, 25);
      const included = await stats(A.id, '?exclude_archived=false');
      assert.deepEqual(figures(included)[SENT], [2, 2, '2024-02-02T10:02:00Z', '2024-02-03T10:05:00Z']);
      assert.deepEqual(await stats(A.id), included);
      // u2's only sent event archived: u2 no longer counts as dismissed-and-sent.
      await archive(t, A.id, A.e3);
      const both = await stats(A.id, '?exclude_archived=true');
      assert.deepEqual(figures(both)[SENT], [0, 0, null, null]);
      assert.deepEqual(figures(both)[DISMISSED], [2, 2, '2024-02-03T10:06:00Z', '2024-02-04T10:01:00Z']);
      const viaBody = await stats(A.id, '', { exclude_archived: true });
      assert.deepEqual(viaBody, both);
    } finally {
      await archive(t, A.id, A.e2, 'unarchive');
      await archive(t, A.id, A.e3, 'unarchive');
    }
  });

  test('a survey without start_date counts from its creation; without end_date, with no end', async () => {
    const id = await surveyWith(t, { created_at: '2024-05-01T00:00:00Z', start_date: null, end_date: null });
    await sendEvents(t, [
      { kind: 'shown', survey: id, person: 'w1', at: '2024-04-30T23:59:59Z' },
      { kind: 'shown', survey: id, person: 'w1', at: '2024-05-01T00:00:00Z' },
      { kind: 'shown', survey: id, person: 'w2', at: '2024-05-10T00:00:00Z' },
    ]);
    assert.deepEqual(figures(await stats(id))[SHOWN], [2, 2, '2024-05-01T00:00:00Z', '2024-05-10T00:00:00Z']);
  });

  test('only-seen figures and rates of a survey mostly ignored', async () => {
    const id = await surveyWith(t, { created_at: '2024-06-01T00:00:00Z', start_date: '2024-06-01T00:00:00Z' });
    await sendEvents(t, [
      { kind: 'shown', survey: id, person: 'o1', at: '2024-06-02T00:00:00Z' },
      { kind: 'shown', survey: id, person: 'o2', at: '2024-06-02T00:00:01Z' },
      { kind: 'shown', survey: id, person: 'o3', at: '2024-06-02T00:00:02Z' },
      { kind: 'shown', survey: id, person: 'o3', at: '2024-06-03T00:00:02Z' },
      { kind: 'shown', survey: id, person: 'o4', at: '2024-06-02T00:00:03Z' },
      { kind: 'shown', survey: id, person: 'o5', at: '2024-06-02T00:00:04Z' },
      { kind: 'shown', survey: id, person: 'o6', at: '2024-06-02T00:00:05Z' },
      { kind: 'sent', survey: id, person: 'o1', at: '2024-06-02T00:01:00.250Z', submission: randomUUID() },
      { kind: 'dismissed', survey: id, person: 'o2', at: '2024-06-02T00:01:00Z' },
    ]);
    const body = await stats(id);
    const shown = (body.stats as Record<string, Json>)[SHOWN];
    assert.equal(shown.unique_persons_only_seen, 4);
    assert.equal(shown.total_count_only_seen, 5);
    assert.equal((body.stats as Record<string, Json>)[SENT].first_seen, '2024-06-02T00:01:00.250000Z');
    assert.deepEqual(body.rates, { response_rate: 14.29, dismissal_rate: 14.29, unique_users_response_rate: 16.67, unique_users_dismissal_rate: 16.67 });
  });

  test('a survey with no events: every kind present with zeros', async () => {
    const survey = await createSurvey(t);
    const body = await stats(survey.id as string);
    assert.deepEqual(figures(body), { [SHOWN]: [0, 0, null, null], [DISMISSED]: [0, 0, null, null], [SENT]: [0, 0, null, null] });
    assert.equal(body.start_date, null);
    assert.equal(body.end_date, null);
  });

  test('bad dates and an inverted range are 400s; nothing else is read', async () => {
    const message = 'Invalid date format. Please use ISO 8601 format with timezone info (e.g. 2024-01-01T00:00:00Z or 2024-01-01T00:00:00+00:00)';
    assertValidation(await getJson(t, statsUrl(A.id, '?date_from=yesterday')), message, 'date_from');
    assertValidation(await getJson(t, statsUrl(A.id, '?date_to=2024-02-30')), message, 'date_to');
    assertValidation(await getJson(t, statsUrl(A.id, '?date_from=2024-02-03&date_to=2024-02-02')), 'date_from must be before date_to', 'date_from');
    assertValidation(await getJson(t, globalStatsUrl('?date_from=2024-13-01')), message, 'date_from');
    assertValidation(await getJson(t, globalStatsUrl('?date_from=2024-02-03&date_to=2024-02-02T23:59:59Z')), 'date_from must be before date_to', 'date_from');
  });

  test('unknown, non-uuid and other projects’ surveys are 404', async () => {
    for (const id of [randomUUID(), '12345', 'stats-nope']) {
      const response = await getJson(t, statsUrl(id));
      assert.equal(response.statusCode, 404, id);
      assert.deepEqual(response.json(), NOT_FOUND);
    }
    const other = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Other' } });
    assert.equal(other.statusCode, 201, other.body);
    const foreign = await createSurvey(t, {}, other.json().id);
    assert.equal((await getJson(t, statsUrl(foreign.id as string))).statusCode, 404);
    assert.equal((await getJson(t, statsUrl(A.id, '', other.json().id))).statusCode, 404);
  });

  test('scopes: survey:read reads stats; other scopes get a 403', async () => {
    const read = await keyWith(t, ['survey:read']);
    assert.equal((await getJson(t, statsUrl(A.id), { key: read })).statusCode, 200);
    assert.equal((await getJson(t, globalStatsUrl(), { key: read })).statusCode, 200);
    const write = await keyWith(t, ['feature_flag:read']);
    for (const url of [statsUrl(A.id), globalStatsUrl()]) {
      const response = await getJson(t, url, { key: write });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().detail, "API key missing required scope 'survey:read'");
    }
    assert.equal((await t.request({ method: 'GET', url: statsUrl(A.id), key: null })).statusCode, 401);
  });

  test('other methods are 405', async () => {
    const response = await t.request({ method: 'POST', url: statsUrl(A.id), payload: {} });
    assert.equal(response.statusCode, 405);
    assert.equal((await t.request({ method: 'DELETE', url: globalStatsUrl() })).statusCode, 405);
  });
});

describe('global stats', () => {
  test('no survey that is not archived: empty stats and zero rates', async () => {
    const { rows } = await t.db.pool.query<{ id: string }>('UPDATE surveys SET archived = true WHERE project_id = 1 AND NOT archived RETURNING id');
    try {
      const response = await getJson(t, globalStatsUrl());
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        stats: {},
        rates: { response_rate: 0, dismissal_rate: 0, unique_users_response_rate: 0, unique_users_dismissal_rate: 0 },
      });
    } finally {
      await t.db.pool.query('UPDATE surveys SET archived = false WHERE id = ANY($1::uuid[])', [rows.map((r) => r.id)]);
    }
  });

  test('over every survey not archived (drafts included), only the given dates, persons once across surveys', async () => {
    // Only A and a draft B remain in scope; the earlier surveys are archived for this test.
    const { rows } = await t.db.pool.query<{ id: string }>('UPDATE surveys SET archived = true WHERE project_id = 1 AND id <> $1 AND NOT archived RETURNING id', [A.id]);
    try {
      const draft = await surveyWith(t, { created_at: '2024-07-01T00:00:00Z', start_date: null });
      const archivedSurvey = await surveyWith(t, { created_at: '2024-01-01T00:00:00Z', archived: true });
      await sendEvents(t, [
        // u1 and u3 of A are seen by the draft too: still 1 person each
        { kind: 'shown', survey: draft, person: 'u1', at: '2024-02-10T00:00:00Z' },
        { kind: 'shown', survey: draft, person: 'u9', at: '2024-02-10T00:00:01Z' },
        { kind: 'sent', survey: draft, person: 'u3', at: '2024-02-10T00:01:00Z', submission: X },
        { kind: 'shown', survey: archivedSurvey, person: 'u8', at: '2024-02-10T00:00:00Z' },
        { kind: 'sent', survey: archivedSurvey, person: 'u8', at: '2024-02-10T00:00:00Z' },
      ]);
      // Everything of A (its window does not apply) and of the draft; nothing of the archived survey.
      const all = await getJson(t, globalStatsUrl());
      assert.equal(all.statusCode, 200, all.body);
      const body = all.json();
      assert.deepEqual(figures(body), {
        [SHOWN]: [8, 6, '2024-01-20T10:00:00Z', '2024-03-05T10:00:00Z'],
        // u2 and u3 dismissed; both also sent (u3 in the draft): 2 - 2
        [DISMISSED]: [2, 0, '2024-02-03T10:06:00Z', '2024-02-04T10:01:00Z'],
        // A: X, e3, u5's, u4's; the draft: its X (same submission id, another survey)
        [SENT]: [5, 5, '2024-01-20T10:01:00Z', '2024-03-05T10:00:00Z'],
      });
      assert.deepEqual(body.rates, { response_rate: 62.5, dismissal_rate: 25, unique_users_response_rate: 83.33, unique_users_dismissal_rate: 0 });
      assert.equal(body.survey_id, undefined);

      const february = await getJson(t, globalStatsUrl('?date_from=2024-02-01T00:00:00Z&date_to=2024-02-29T23:59:59Z'));
      assert.deepEqual(figures(february.json()), {
        [SHOWN]: [6, 4, '2024-02-02T10:00:00Z', '2024-02-10T00:00:01Z'],
        [DISMISSED]: [2, 0, '2024-02-03T10:06:00Z', '2024-02-04T10:01:00Z'],
        [SENT]: [3, 3, '2024-02-02T10:02:00Z', '2024-02-10T00:01:00Z'],
      });

      // exclude_archived: A's X response archived → gone from the global figures too.
      await archive(t, A.id, A.e2);
      try {
        const excluded = await getJson(t, globalStatsUrl('?exclude_archived=true'));
        assert.deepEqual(figures(excluded.json())[SENT], [4, 4, '2024-01-20T10:01:00Z', '2024-03-05T10:00:00Z']);
        assert.deepEqual(figures((await getJson(t, globalStatsUrl())).json())[SENT], [5, 5, '2024-01-20T10:01:00Z', '2024-03-05T10:00:00Z']);
      } finally {
        await archive(t, A.id, A.e2, 'unarchive');
      }
    } finally {
      await t.db.pool.query('UPDATE surveys SET archived = false WHERE id = ANY($1::uuid[])', [rows.map((r) => r.id)]);
    }
  });
});

describe('global stats kept in memory', () => {
  test('answers follow new events, surveys archived and responses archived at once', async () => {
    const shownOf = async (query = '', headers: Record<string, string> = {}) => {
      const response = await t.request({ method: 'GET', url: globalStatsUrl(query), headers });
      assert.equal(response.statusCode, 200, response.body);
      return figures(response.json())[SHOWN] ?? null;
    };
    const sentOf = async (query: string) => figures((await getJson(t, globalStatsUrl(query))).json())[SENT];
    const before = await shownOf();
    assert.deepEqual(await shownOf(), before);
    await sendEvents(t, [{ kind: 'shown', survey: A.id, person: 'cache-1', at: '2024-02-20T00:00:00Z' }]);
    const after = await shownOf();
    assert.equal(after![0], before![0] + 1);
    assert.equal(after![1], before![1] + 1);
    assert.deepEqual(await shownOf('', { 'cache-control': 'no-cache' }), after);

    const excluded = await sentOf('?exclude_archived=true');
    await archive(t, A.id, A.e3);
    try {
      assert.equal((await sentOf('?exclude_archived=true'))[0], excluded[0] - 1);
    } finally {
      await archive(t, A.id, A.e3, 'unarchive');
    }
    assert.deepEqual(await sentOf('?exclude_archived=true'), excluded);

    await setSurveyDates(t, A.id, { archived: true });
    try {
      const withoutA = await shownOf();
      assert.ok(withoutA === null || withoutA[0] <= after![0] - 5, JSON.stringify(withoutA));
    } finally {
      await setSurveyDates(t, A.id, { archived: false });
    }
    assert.deepEqual(await shownOf(), after);
  });
});

describe('ingestion into the survey tables', () => {
  test('a $survey_id that is not a UUID is stored as an event but names no survey', async () => {
    const uuid = randomUUID();
    await sendBatch(t, [
      { event: 'survey shown', distinct_id: 'z', uuid, timestamp: '2024-02-02T00:00:00Z', properties: { $survey_id: 'not-a-uuid' } },
      { event: 'survey sent', distinct_id: 'z', timestamp: '2024-02-02T00:00:00Z', properties: { $survey_id: 12 } },
      { event: 'survey sent', distinct_id: 'z', timestamp: '2024-02-02T00:00:00Z', properties: {} },
    ]);
    const events = await t.db.pool.query('SELECT 1 FROM events WHERE uuid = $1', [uuid]);
    assert.equal(events.rowCount, 1);
    const survey = await t.db.pool.query('SELECT 1 FROM survey_events WHERE uuid = $1', [uuid]);
    assert.equal(survey.rowCount, 0);
  });

  test('concurrent batches on the same survey and submissions keep the rollups exact', async () => {
    const id = await surveyWith(t, { created_at: '2024-01-01T00:00:00Z', start_date: '2024-01-01T00:00:00Z' });
    const submissions = [randomUUID(), randomUUID(), randomUUID()];
    const batches = Array.from({ length: 8 }, (_, b) =>
      Array.from({ length: 12 }, (_, i): SurveyEvent => {
        const kinds = ['shown', 'sent', 'dismissed'] as const;
        return {
          kind: kinds[(b + i) % 3],
          survey: id,
          // persons of their own per batch (no person lock in common), submissions shared by all
          person: `c${b}-${i % 4}`,
          at: new Date(Date.parse('2024-03-01T00:00:00Z') + ((b * 13 + i * 7) % 50) * 60_000).toISOString(),
          submission: submissions[i % 3],
        };
      }),
    );
    await Promise.all(batches.map((batch) => sendEvents(t, batch)));
    const incremental = await rollups();
    await t.db.pool.query('SELECT survey_responses_rebuild(1)');
    assert.deepEqual(await rollups(), incremental);
    const numbers = await rawNumbers(t.db.pool, 1, [id], { from: null, to: null }, []);
    assert.equal(numbers.responses, 3);
  });

  test('the rollups kept by ingestion equal those rebuilt from the events', async () => {
    const incremental = await rollups();
    assert.ok(incremental.events.length > 20);
    await t.db.pool.query('SELECT survey_responses_rebuild(1)');
    assert.deepEqual(await rollups(), incremental);
  });
});

describe('the two ways to the numbers agree', () => {
  test('totals minus what is left out = the window counted directly, on random data and windows', async () => {
    const id = await surveyWith(t, { created_at: '2024-01-01T00:00:00Z', start_date: '2024-01-01T00:00:00Z' });
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const base = Date.parse('2024-01-01T00:00:00Z');
    const at = () => new Date(base + Math.floor(random() * 30) * 3_600_000).toISOString();
    const events: SurveyEvent[] = [];
    const submissions = Array.from({ length: 25 }, () => randomUUID());
    for (let i = 0; i < 400; i += 1) {
      const person = `r${Math.floor(random() * 40)}`;
      const roll = random();
      if (roll < 0.45) events.push({ kind: 'shown', survey: id, person, at: at() });
      else if (roll < 0.6) events.push({ kind: 'dismissed', survey: id, person, at: at(), partial: random() < 0.2 });
      else
        events.push({
          kind: 'sent',
          survey: id,
          // a few submissions answered by another person part-way (a merge, a shared device)
          person: random() < 0.1 ? `r${Math.floor(random() * 40)}` : person,
          at: at(),
          submission: random() < 0.7 ? submissions[Math.floor(random() * submissions.length)] : undefined,
        });
    }
    // In several batches, late events included, so that submissions change their latest event.
    for (let start = 0; start < events.length; start += 37) await sendEvents(t, events.slice(start, start + 37));
    const sentUuids = (await t.db.pool.query<{ uuid: string }>('SELECT uuid::text AS uuid FROM survey_events WHERE survey_id = $1 AND kind = 3 ORDER BY uuid', [id])).rows.map((r) => r.uuid);
    // The rollups that many small batches built equal those derived at once.
    const incremental = await rollups();
    await t.db.pool.query('SELECT survey_responses_rebuild(1)');
    assert.deepEqual(await rollups(), incremental);
    const all = await rawNumbers(t.db.pool, 1, [id], { from: null, to: null }, []);
    assert.ok(all.responses > 20 && all.dismissedAndSentPersons > 3 && all.respondingPersons > 10, JSON.stringify(all));

    const hour = (h: number) => new Date(base + h * 3_600_000).toISOString();
    const windows: Window[] = [
      { from: null, to: null },
      { from: hour(0), to: null },
      { from: hour(3), to: null },
      { from: null, to: hour(26) },
      { from: hour(5), to: hour(24) },
      { from: hour(12), to: hour(13) },
      { from: hour(12), to: hour(12) },
      { from: hour(29), to: null },
    ];
    for (const archived of [[], sentUuids.filter((_, i) => i % 5 === 0)]) {
      for (const window of windows) {
        const direct = await rawNumbers(t.db.pool, 1, [id], window, archived);
        const subtracted = await subtractedNumbers(t.db.pool, 1, id, window, archived);
        assert.deepEqual(subtracted, direct, JSON.stringify({ window, archived: archived.length }));
      }
    }
  });
});
