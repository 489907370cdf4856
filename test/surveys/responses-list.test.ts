import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { archive, getJson, keyWith, NOT_FOUND, sendBatch, setSurveyDates } from './responses-fixtures.ts';
import { assertValidation, createSurvey, otherProject, surveysUrl, type Json } from './support.ts';
import { eventually } from '../helpers/eventually.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const QUESTIONS = [
  { id: 'q-open', type: 'open', question: 'What could we do better?' },
  { id: 'q-rate', type: 'rating', question: 'How likely, 0 to 10?', scale: 10, display: 'number' },
  { id: 'q-multi', type: 'multiple_choice', question: 'Which, "exactly"?', choices: ['Speed', 'Price', 'Other'], hasOpenChoice: true },
];

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

interface Sent {
  person: string;
  at: string;
  answers?: Json;
  uuid?: string;
  submission?: string;
  completed?: boolean;
  email?: string;
}

function sentEvent(surveyId: string, sent: Sent): Json {
  return {
    event: 'survey sent',
    distinct_id: sent.person,
    uuid: sent.uuid ?? randomUUID(),
    timestamp: sent.at,
    properties: {
      $survey_id: surveyId,
      ...(sent.submission ? { $survey_submission_id: sent.submission } : {}),
      ...(sent.completed === undefined ? {} : { $survey_completed: sent.completed }),
      ...(sent.email ? { $set: { email: sent.email } } : {}),
      ...sent.answers,
    },
  };
}

async function launchedSurvey(projectId = t.projectId): Promise<string> {
  const survey = await createSurvey(t, { questions: QUESTIONS }, projectId);
  await setSurveyDates(t, survey.id, { created_at: ago(40 * DAY), start_date: ago(30 * DAY) });
  return survey.id as string;
}

const listUrl = (id: string, query = '', projectId: number | string = t.projectId) => `${surveysUrl(projectId)}${id}/responses/${query}`;

async function list(id: string, query = ''): Promise<Json> {
  const response = await getJson(t, listUrl(id, query));
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** Follows `next` from the first page; answers every uuid in order. */
async function walk(id: string, query: string): Promise<string[]> {
  const seen: string[] = [];
  let url: string | null = listUrl(id, query);
  while (url) {
    const response = await getJson(t, url.replace(/^https?:\/\/[^/]+/, ''));
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    seen.push(...body.results.map((r: Json) => r.uuid));
    url = body.next;
  }
  return seen;
}

describe('the responses list', () => {
  let surveyId: string;
  const uuids: Record<string, string> = {};

  before(async () => {
    surveyId = await launchedSurvey();
    for (const name of ['ada', 'bob', 'cy', 'partial1', 'partial2', 'legacy', 'dee']) uuids[name] = randomUUID();
    const submission = randomUUID();
    await sendBatch(t, [
      sentEvent(surveyId, {
        person: 'ada',
        email: 'ada@example.com',
        at: ago(3 * DAY),
        uuid: uuids.ada,
        submission: randomUUID(),
        completed: true,
        answers: { '$survey_response_q-open': 'Faster 100% reports_please', '$survey_response_q-rate': '9', '$survey_response_q-multi': ['Speed', 'Price'] },
      }),
      sentEvent(surveyId, {
        person: 'bob',
        at: ago(2 * DAY),
        uuid: uuids.bob,
        completed: true,
        answers: { '$survey_response_q-open': 'Nothing', '$survey_response_q-rate': 3 },
      }),
      // Two events of one submission: the later (partial) one is the response.
      sentEvent(surveyId, { person: 'cy', at: ago(DAY + 60_000), uuid: uuids.partial1, submission, completed: false, answers: { '$survey_response_q-open': 'first' } }),
      sentEvent(surveyId, { person: 'cy', at: ago(DAY), uuid: uuids.partial2, submission, completed: false, answers: { '$survey_response_q-open': 'first', '$survey_response_q-rate': '7' } }),
      // Legacy index keys: $survey_response for question 0, $survey_response_1 for question 1.
      sentEvent(surveyId, { person: 'legacy', at: ago(12 * 3_600_000), uuid: uuids.legacy, answers: { $survey_response: 'old style', $survey_response_1: '10' } }),
      // Before the survey started: outside its window.
      sentEvent(surveyId, { person: 'early', at: ago(35 * DAY), answers: { '$survey_response_q-open': 'too early' } }),
      sentEvent(surveyId, { person: 'dee', at: ago(60_000), uuid: uuids.dee, completed: true, answers: { '$survey_response_q-open': 'Great' } }),
    ]);
  });

  test('newest first; uuid, distinct id, person, answers by question id (legacy keys too), archived, partial', async () => {
    const body = await list(surveyId);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(
      body.results.map((r: Json) => r.uuid),
      [uuids.dee, uuids.legacy, uuids.partial2, uuids.bob, uuids.ada],
    );
    const ada = body.results.at(-1);
    assert.equal(ada.distinct_id, 'ada');
    assert.equal(ada.person.name, 'ada@example.com');
    assert.deepEqual(ada.person.properties, { email: 'ada@example.com' });
    assert.match(ada.person.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(ada.answers, { 'q-open': 'Faster 100% reports_please', 'q-rate': '9', 'q-multi': ['Speed', 'Price'] });
    assert.equal(ada.archived, false);
    assert.equal(ada.partial, false);
    assert.match(ada.timestamp, /Z$/);
    const legacy = body.results[1];
    assert.deepEqual(legacy.answers, { 'q-open': 'old style', 'q-rate': '10', 'q-multi': null });
    assert.equal(legacy.partial, false);
    const partial = body.results[2];
    assert.deepEqual(partial.answers, { 'q-open': 'first', 'q-rate': '7', 'q-multi': null });
    assert.equal(partial.partial, true);
    assert.equal(body.results[3].answers['q-rate'], 3);
  });

  test('date_from and date_to (ISO and relative), clamped to the survey window', async () => {
    assert.deepEqual(
      (await list(surveyId, '?date_from=-36h')).results.map((r: Json) => r.uuid),
      [uuids.dee, uuids.legacy, uuids.partial2],
    );
    // Before the later event of cy's submission: its earlier event is the response there.
    const to = encodeURIComponent(ago(DAY + 1000));
    assert.deepEqual(
      (await list(surveyId, `?date_to=${to}`)).results.map((r: Json) => r.uuid),
      [uuids.partial1, uuids.bob, uuids.ada],
    );
    const between = encodeURIComponent(ago(DAY + 30_000));
    assert.deepEqual(
      (await list(surveyId, `?date_from=-2d&date_to=${between}`)).results.map((r: Json) => r.uuid),
      [uuids.partial1],
    );
    assert.deepEqual((await list(surveyId, '?date_from=2000-01-01')).results.length, 5);
  });

  test('search: case-insensitive in open answers, % and _ are literal', async () => {
    assert.deepEqual((await list(surveyId, '?search=FASTER')).results.map((r: Json) => r.uuid), [uuids.ada]);
    assert.deepEqual((await list(surveyId, '?search=100%25')).results.map((r: Json) => r.uuid), [uuids.ada]);
    assert.deepEqual((await list(surveyId, '?search=s_p')).results.map((r: Json) => r.uuid), [uuids.ada]);
    assert.deepEqual((await list(surveyId, '?search=%25')).results.map((r: Json) => r.uuid), [uuids.ada]);
    assert.deepEqual((await list(surveyId, '?search=_')).results.map((r: Json) => r.uuid), [uuids.ada]);
    assert.deepEqual((await list(surveyId, '?search=old%20STYLE')).results.map((r: Json) => r.uuid), [uuids.legacy]);
    // Ratings are not open answers.
    assert.deepEqual((await list(surveyId, '?search=9')).results, []);
    assert.equal((await list(surveyId, `?search=${'%20'.repeat(5)}`)).results.length, 5);
  });

  test('archived responses are marked, and left out with exclude_archived=true', async () => {
    await archive(t, surveyId, uuids.bob);
    const all = await list(surveyId);
    assert.equal(all.results.find((r: Json) => r.uuid === uuids.bob).archived, true);
    const kept = await list(surveyId, '?exclude_archived=TRUE');
    assert.deepEqual(
      kept.results.map((r: Json) => r.uuid),
      [uuids.dee, uuids.legacy, uuids.partial2, uuids.ada],
    );
    await archive(t, surveyId, uuids.bob, 'unarchive');
    assert.equal((await list(surveyId, '?exclude_archived=true')).results.length, 5);
  });

  test('bad input → 400 naming the argument', async () => {
    const cases: [string, string, string][] = [
      ['?date_from=yesterday', 'date_from', 'Invalid date format'],
      ['?date_to=2024-13-01', 'date_to', 'Invalid date format'],
      ['?date_from=2024-02-01&date_to=2024-01-01', 'date_from', 'date_from must be before date_to'],
      [`?search=${'x'.repeat(201)}`, 'search', 'Ensure this value has at most 200 characters'],
      ['?cursor=abc', 'cursor', 'Invalid cursor.'],
      [`?cursor=${Buffer.from('1_2_n').toString('base64url')}`, 'cursor', 'Invalid cursor.'],
      ['?cursor=%3Cscript%3E', 'cursor', 'Invalid cursor.'],
      ['?limit=0', 'limit', ''],
      ['?limit=-1', 'limit', ''],
      ['?limit=ten', 'limit', ''],
      ['?limit=99999999999', 'limit', ''],
      ['?format=xml', 'format', 'Unsupported format'],
    ];
    for (const [query, attr, detail] of cases) {
      const response = await getJson(t, listUrl(surveyId, query));
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      const body = response.json();
      assert.equal(body.type, 'validation_error', query);
      assert.equal(body.attr, attr, query);
      assert.ok(String(body.detail).startsWith(detail), `${query}: ${body.detail}`);
    }
    // A limit above the maximum is clamped.
    assert.equal((await list(surveyId, '?limit=5000')).results.length, 5);
  });

  test('other projects, unknown and malformed ids → 404; scopes', async () => {
    const other = await otherProject(t);
    for (const url of [listUrl(surveyId, '', other), listUrl(randomUUID()), listUrl('12345'), listUrl(surveyId, '?format=csv', other)]) {
      const response = await getJson(t, url);
      assert.equal(response.statusCode, 404, `${url}: ${response.body}`);
      assert.deepEqual(response.json(), NOT_FOUND);
    }
    const otherSurvey = await launchedSurvey(other);
    assert.equal((await getJson(t, listUrl(otherSurvey))).statusCode, 404);
    const reader = await keyWith(t, ['survey:read']);
    assert.equal((await getJson(t, listUrl(surveyId), { key: reader })).statusCode, 200);
    const flagsOnly = await keyWith(t, ['feature_flag:read']);
    assert.equal((await getJson(t, listUrl(surveyId), { key: flagsOnly })).statusCode, 403);
    const post = await t.request({ method: 'POST', url: listUrl(surveyId), payload: {} });
    assert.equal(post.statusCode, 405);
  });
});

describe('pagination', () => {
  test('pages by cursor: every response once, in order, while newer responses arrive; previous goes back', async () => {
    const surveyId = await launchedSurvey();
    const base = Date.now() - 5 * DAY;
    // Ten responses, two pairs sharing a timestamp (the uuid breaks the tie).
    const batch = Array.from({ length: 10 }, (_, i) =>
      sentEvent(surveyId, { person: `p${i}`, at: new Date(base + Math.floor(i / 2) * 60_000 + (i % 3 === 0 ? 0 : i)).toISOString(), answers: { '$survey_response_q-open': `answer ${i}` } }),
    );
    await sendBatch(t, batch);
    const expected = (await list(surveyId, '?limit=100')).results.map((r: Json) => r.uuid);
    assert.equal(expected.length, 10);

    const first = await list(surveyId, '?limit=3');
    assert.deepEqual(first.results.map((r: Json) => r.uuid), expected.slice(0, 3));
    assert.equal(first.previous, null);
    assert.match(first.next, /^http:\/\/[^/]+\/api\/projects\/\d+\/surveys\/[0-9a-f-]+\/responses\/\?limit=3&cursor=/);

    // New responses (newer than all) arrive between pages: the walk neither repeats nor skips.
    await sendBatch(t, [sentEvent(surveyId, { person: 'late1', at: ago(1000), answers: {} }), sentEvent(surveyId, { person: 'late2', at: ago(500), answers: {} })]);
    const rest: string[] = [];
    let url: string | null = first.next;
    let second: Json | null = null;
    while (url) {
      const response = await getJson(t, url.replace(/^https?:\/\/[^/]+/, ''));
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      second ??= body;
      rest.push(...body.results.map((r: Json) => r.uuid));
      url = body.next;
    }
    assert.deepEqual([...expected.slice(0, 3), ...rest], expected);

    // previous from the second page: the first page again (the newer arrivals before it are one more page back).
    const back = await getJson(t, (second as Json).previous.replace(/^https?:\/\/[^/]+/, ''));
    const backBody = back.json();
    assert.deepEqual(backBody.results.map((r: Json) => r.uuid), expected.slice(0, 3));
    assert.ok(backBody.previous, 'the two newer responses lie before it');
    const newest = await getJson(t, backBody.previous.replace(/^https?:\/\/[^/]+/, ''));
    assert.equal(newest.json().results.length, 2);
    assert.equal(newest.json().previous, null);

    // Filters travel in the cursor URLs.
    const filtered = await walk(surveyId, '?limit=2&search=answer');
    assert.deepEqual(filtered, expected);
  });
});

describe('CSV', () => {
  let surveyId: string;
  const tricky = randomUUID();

  before(async () => {
    surveyId = await launchedSurvey();
    await setSurveyDates(t, surveyId, {});
    await t.db.pool.query(`UPDATE surveys SET name = $2 WHERE id = $1`, [surveyId, 'Q3 "NPS" / ünïcode, survey']);
    await sendBatch(t, [
      sentEvent(surveyId, {
        person: 'quote"r',
        email: '=HYPERLINK("http://evil")',
        uuid: tricky,
        at: ago(DAY),
        answers: { '$survey_response_q-open': 'Line one,\r\nline "two"', '$survey_response_q-rate': '-1', '$survey_response_q-multi': ['Speed', '@Other'] },
      }),
      sentEvent(surveyId, { person: 'plain', at: ago(2 * DAY), answers: { '$survey_response_q-open': '+cmd|calc', '$survey_response_q-rate': 8 } }),
      sentEvent(surveyId, { person: 'tabbed', at: ago(3 * DAY), answers: { '$survey_response_q-open': '\tstarts with a tab', '$survey_response_q-multi': ['Price'] } }),
    ]);
  });

  test('?format=csv: headers, one row per response, RFC 4180 quoting, formula guard, multiple choice joined', async () => {
    const response = await getJson(t, listUrl(surveyId, '?format=csv&limit=1'));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
    const disposition = String(response.headers['content-disposition']);
    assert.match(disposition, /^attachment; filename="Q3-NPS-unicode-survey-responses-\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.equal(
      response.body,
      [
        'Response ID,Timestamp,Distinct ID,Person,Archived,Partial,What could we do better?,"How likely, 0 to 10?","Which, ""exactly""?"',
        `${tricky},${response.body.split('\r\n')[1].split(',')[1]},"quote""r","'=HYPERLINK(""http://evil"")",false,false,"Line one,\r\nline ""two""",'-1,"Speed, @Other"`,
        response.body.split('\r\n').slice(3, 4)[0],
        response.body.split('\r\n').slice(4, 5)[0],
        '',
      ].join('\r\n'),
    );
    const lines = response.body.split('\r\n');
    assert.match(lines[3], /^[0-9a-f-]{36},[^,]+,plain,plain,false,false,'\+cmd\|calc,8,$/);
    assert.match(lines[4], /^[0-9a-f-]{36},[^,]+,tabbed,tabbed,false,false,'\tstarts with a tab,,Price$/);
  });

  test('Accept: text/csv gives CSV too; filters apply; an empty window has only the header', async () => {
    const response = await t.request({ method: 'GET', url: listUrl(surveyId, '?search=calc'), headers: { accept: 'text/csv' } });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.body.split('\r\n').length, 3);
    const json = await t.request({ method: 'GET', url: listUrl(surveyId), headers: { accept: 'application/json, text/csv;q=0.5' } });
    assert.match(String(json.headers['content-type']), /^application\/json/);
    const empty = await getJson(t, listUrl(surveyId, '?format=csv&date_to=2001-01-01'));
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.body.split('\r\n').length, 2);
  });

  test('10 000 responses stream in batches, newest first, without Content-Length', async () => {
    const bulk = await launchedSurvey();
    await t.db.pool.query(
      `INSERT INTO events (project_id, uuid, event, distinct_id, properties, timestamp)
       SELECT $1, gen_random_uuid(), 'survey sent', 'bulk-' || g,
              jsonb_build_object('$survey_id', $2::text, '$survey_response_q-open', 'answer, number ' || g, '$survey_response_q-rate', (g % 11)::text),
              now() - interval '1 day' + g * interval '1 millisecond'
         FROM generate_series(1, 10000) g`,
      [t.projectId, bulk],
    );
    await t.db.pool.query('SELECT survey_responses_rebuild($1)', [t.projectId]);
    const response = await getJson(t, listUrl(bulk, '?format=csv'));
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-length'], undefined);
    assert.equal(response.headers['transfer-encoding'], 'chunked');
    const lines = response.body.split('\r\n');
    assert.equal(lines.length, 10002);
    assert.match(lines[1], /,bulk-10000,,false,false,"answer, number 10000",1,$/);
    assert.match(lines[10000], /,bulk-1,,false,false,"answer, number 1",1,$/);
    assert.equal(new Set(lines.slice(1, -1).map((l) => l.slice(0, 36))).size, 10000);
  });

  test('a client that goes away mid-export ends the reading: no connection is left busy', async () => {
    const bulk = await launchedSurvey();
    await t.db.pool.query(
      `INSERT INTO events (project_id, uuid, event, distinct_id, properties, timestamp)
       SELECT $1, gen_random_uuid(), 'survey sent', 'gone-' || g,
              jsonb_build_object('$survey_id', $2::text, '$survey_response_q-open', repeat('long answer ', 20)),
              now() - interval '1 day' + g * interval '1 millisecond'
         FROM generate_series(1, 20000) g`,
      [t.projectId, bulk],
    );
    await t.db.pool.query('SELECT survey_responses_rebuild($1)', [t.projectId]);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    assert.ok(address);
    const received = await new Promise<number>((resolve, reject) => {
      const req = http.get(
        { host: '127.0.0.1', port, path: listUrl(bulk, '?format=csv'), headers: { authorization: `Bearer ${t.key}` } },
        (res) => {
          res.once('data', (chunk: Buffer) => {
            res.pause();
            req.destroy();
            resolve(chunk.length);
          });
        },
      );
      req.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
    });
    assert.ok(received > 0);
    // The stream is torn down; whatever batch was being read finishes and its connection returns.
    await eventually('every connection back in the pool', async () => t.db.pool.totalCount === t.db.pool.idleCount && t.db.pool.waitingCount === 0, undefined, {
      intervalMs: 50,
    });
    assert.equal(t.db.pool.waitingCount, 0);
    assert.equal(t.db.pool.totalCount, t.db.pool.idleCount);
    const { rows } = await t.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()`,
    );
    assert.equal(rows[0].n, 0);
  });
});
