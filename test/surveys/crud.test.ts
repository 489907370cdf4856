import assert from 'node:assert/strict';
import pg from 'pg';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { inlineRefs } from '../openapi/served-document.ts';
import { otherUser } from '../accounts/support.ts';
import {
  assertValidation,
  createSurvey,
  getSurvey,
  keyWith,
  minimalSurvey,
  otherProject,
  patchSurvey,
  surveysUrl,
  type Json,
} from './support.ts';
import { eventually } from '../helpers/eventually.ts';

const COMMON_KEYS = [
  'id', 'name', 'description', 'type', 'schedule', 'linked_flag', 'targeting_flag', 'internal_targeting_flag',
  'questions', 'conditions', 'appearance', 'created_at', 'created_by', 'start_date', 'end_date', 'archived',
  'responses_limit', 'iteration_count', 'iteration_frequency_days', 'iteration_start_dates', 'current_iteration',
  'current_iteration_start_date', 'response_sampling_start_date', 'response_sampling_interval_type',
  'response_sampling_interval', 'response_sampling_limit', 'response_sampling_daily_limits',
  'enable_partial_responses', 'enable_iframe_embedding', 'translations', 'form_content',
];
const READ_KEYS = [...COMMON_KEYS, 'linked_flag_id', 'linked_insight_id', 'feature_flag_keys', 'user_access_level'].sort();
const WRITE_KEYS = [...COMMON_KEYS, 'targeting_flag_id', 'targeting_flag_filters', 'remove_targeting_flag', '_create_in_folder'].sort();

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const url = (suffix = '') => `${surveysUrl(t.projectId)}${suffix}`;

describe('shapes', () => {
  test('POST answers 201 with the write shape; GET answers the read shape', async () => {
    const written = await createSurvey(t, { name: 'Shapes' });
    assert.deepEqual(Object.keys(written).sort(), WRITE_KEYS);
    const read = await getSurvey(t, written.id);
    assert.deepEqual(Object.keys(read).sort(), READ_KEYS);
    const patched = await patchSurvey(t, written.id, { description: 'x' });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(Object.keys(patched.json()).sort(), WRITE_KEYS);
    const list = await t.request({ method: 'GET', url: url() });
    const item = (list.json().results as Json[]).find((s) => s.id === written.id)!;
    assert.deepEqual(Object.keys(item).sort(), READ_KEYS);
  });

  test("a fresh survey has PostHog's defaults", async () => {
    const written = await createSurvey(t, { name: 'Defaults' });
    assert.match(String(written.id), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a UUID v7');
    const s = await getSurvey(t, written.id);
    assert.equal(s.name, 'Defaults');
    assert.equal(s.description, '');
    assert.equal(s.type, 'popover');
    assert.equal(s.schedule, 'once');
    assert.equal(s.enable_partial_responses, false);
    assert.equal(s.enable_iframe_embedding, false);
    assert.equal(s.appearance, null);
    assert.equal(s.conditions, null);
    assert.equal(s.translations, null);
    assert.equal(s.targeting_flag, null);
    assert.equal(s.linked_flag, null);
    assert.equal(s.linked_flag_id, null);
    assert.equal(s.linked_insight_id, null);
    assert.deepEqual(s.iteration_start_dates, []);
    assert.equal(s.current_iteration, null);
    assert.equal(s.current_iteration_start_date, null);
    assert.equal(s.response_sampling_interval_type, 'week');
    assert.equal(s.response_sampling_daily_limits, null);
    assert.equal(s.form_content, null);
    assert.equal(s.archived, false);
    assert.equal(s.start_date, null);
    assert.equal(s.end_date, null);
    assert.equal(s.responses_limit, null);
    assert.equal(s.user_access_level, 'manager');
    assert.match(String(s.created_at), /Z$/);
    assert.equal((s.created_by as Json).email, 'admin@bellwether.local');
    const internal = s.internal_targeting_flag as Json;
    assert.ok(internal, 'the internal targeting flag exists');
    assert.equal(internal.active, false);
    assert.deepEqual(s.feature_flag_keys, [
      { key: 'linked_flag_key', value: null },
      { key: 'targeting_flag_key', value: null },
      { key: 'internal_targeting_flag_key', value: internal.key },
      { key: 'internal_response_sampling_flag_key', value: null },
    ]);
  });

  test('the write answer echoes the write-only fields', async () => {
    const written = await createSurvey(t, { name: 'Echo', _create_in_folder: 'Unfiled/Surveys' });
    assert.equal(written._create_in_folder, 'Unfiled/Surveys');
    assert.equal(written.targeting_flag_id, null);
    assert.equal(written.targeting_flag_filters, null);
    assert.equal(written.remove_targeting_flag, null);
  });

  test('questions without an id get a uuid4; client ids are kept', async () => {
    const written = await createSurvey(t, {
      questions: [
        { type: 'open', question: 'First?' },
        { type: 'open', question: 'Second?', id: 'custom-id-1' },
      ],
    });
    const questions = written.questions as Json[];
    assert.match(String(questions[0].id), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(questions[1].id, 'custom-id-1');
    const read = await getSurvey(t, written.id);
    assert.deepEqual(read.questions, questions);
    // A PATCH keeps stored ids and gives new questions theirs.
    const patched = await patchSurvey(t, written.id, { questions: [...questions, { type: 'open', question: 'Third?' }] });
    const after = patched.json().questions as Json[];
    assert.equal(after[0].id, questions[0].id);
    assert.equal(after[1].id, 'custom-id-1');
    assert.match(String(after[2].id), /^[0-9a-f-]{36}$/);
  });

  test('times are ISO 8601 UTC with Z, whatever offset was sent', async () => {
    const written = await createSurvey(t, { start_date: '2024-05-22T16:40:09+02:00' });
    assert.equal(new Date(String(written.start_date)).toISOString(), '2024-05-22T14:40:09.000Z');
    assert.match(String(written.start_date), /^2024-05-22T14:40:09(\.0+)?Z$/);
  });
});

describe('create', () => {
  test('name and type are required', async () => {
    const noName = await t.request({ method: 'POST', url: url(), payload: { type: 'popover', questions: [] } });
    assertValidation(noName, 'This field is required.', 'name', 'required');
    const noType = await t.request({ method: 'POST', url: url(), payload: { name: 'No type', questions: [] } });
    assertValidation(noType, 'This field is required.', 'type', 'required');
  });

  test('field-level checks come from the schema', async () => {
    const tooMany = await t.request({ method: 'POST', url: url(), payload: minimalSurvey({ iteration_count: 501 }) });
    assert.equal(tooMany.statusCode, 400, tooMany.body);
    assert.equal(tooMany.json().attr, 'iteration_count');
    const badType = await t.request({ method: 'POST', url: url(), payload: minimalSurvey({ type: 'banner' }) });
    assert.equal(badType.statusCode, 400, badType.body);
    assert.equal(badType.json().attr, 'type');
  });

  test('a name already used in the project is refused (unique)', async () => {
    await createSurvey(t, { name: 'Taken name' });
    const again = await t.request({ method: 'POST', url: url(), payload: minimalSurvey({ name: 'Taken name' }) });
    assertValidation(again, 'There is already a survey with this name.', 'name', 'unique');
  });

  test('concurrent creates of one name: the unique index lets one through, the others read as the uniqueness error', async () => {
    const payload = minimalSurvey({ name: 'Raced name' });
    const responses = await Promise.all(Array.from({ length: 6 }, () => t.request({ method: 'POST', url: url(), payload })));
    assert.equal(responses.filter((r) => r.statusCode === 201).length, 1, responses.map((r) => r.body).join('\n'));
    for (const refused of responses.filter((r) => r.statusCode !== 201)) {
      assertValidation(refused, 'There is already a survey with this name.', 'name', 'unique');
    }
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM feature_flags WHERE project_id = $1 AND name = $2', [
      t.projectId,
      'Targeting flag for survey Raced name',
    ]);
    assert.equal(rows[0].n, 1, 'the refused creates left no internal flag behind');
  });

  test('the same name in another project is fine', async () => {
    await createSurvey(t, { name: 'Shared name' });
    const project = await otherProject(t);
    const copy = await createSurvey(t, { name: 'Shared name' }, project);
    assert.equal(copy.name, 'Shared name');
  });

  test('a create publishes a survey change notice', async () => {
    const listener = new pg.Client({ connectionString: t.db.url });
    await listener.connect();
    const heard: Json[] = [];
    listener.on('notification', (message) => heard.push(JSON.parse(message.payload ?? '{}').change));
    await listener.query('LISTEN bellwether_changes');
    try {
      const written = await createSurvey(t, { name: 'Notice' });
      await eventually('the survey notice', async () => heard.some((c) => c.kind === 'survey' && c.id === written.id));
      assert.ok(heard.some((c) => c.kind === 'survey' && c.id === written.id && c.projectId === t.projectId), JSON.stringify(heard));
      assert.ok(heard.some((c) => c.kind === 'flag'), 'the internal flag is announced too');
    } finally {
      await listener.end();
    }
  });
});

describe('retrieve, update, delete', () => {
  test('unknown, other-project and non-uuid ids are 404', async () => {
    const project = await otherProject(t);
    const elsewhere = await createSurvey(t, {}, project);
    for (const id of ['01890000-0000-7000-8000-000000000000', elsewhere.id, '12345', 'not-a-uuid']) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        const response = await t.request({ method, url: url(`${id}/`), ...(method === 'PATCH' ? { payload: { name: 'x' } } : {}) });
        assert.equal(response.statusCode, 404, `${method} ${id}: ${response.body}`);
        assert.deepEqual(response.json(), { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
      }
    }
  });

  test('PUT is a full update (DRF): name and type required; not on the list', async () => {
    const written = await createSurvey(t);
    const missing = await t.request({ method: 'PUT', url: url(`${written.id}/`), payload: { description: 'x' } });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.equal(missing.json().attr, 'name');
    const put = await t.request({ method: 'PUT', url: url(`${written.id}/`), payload: { ...minimalSurvey(), name: 'Put name', description: 'after put' } });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json().name, 'Put name');
    assert.equal(put.json().description, 'after put');
    const putList = await t.request({ method: 'PUT', url: url(), payload: {} });
    assert.equal(putList.statusCode, 405);
  });

  test('PATCH changes only what is sent and answers 200', async () => {
    const written = await createSurvey(t, { name: 'Patch me', description: 'before', appearance: { backgroundColor: '#fff' } });
    const patched = await patchSurvey(t, written.id, { description: 'after', responses_limit: 10 });
    assert.equal(patched.statusCode, 200, patched.body);
    const body = patched.json();
    assert.equal(body.name, 'Patch me');
    assert.equal(body.description, 'after');
    assert.equal(body.responses_limit, 10);
    assert.deepEqual(body.appearance, { backgroundColor: '#fff' });
    const read = await getSurvey(t, written.id);
    assert.equal(read.description, 'after');
  });

  test('DELETE answers 204 with no body; the survey is gone', async () => {
    const written = await createSurvey(t);
    const deleted = await t.request({ method: 'DELETE', url: url(`${written.id}/`) });
    assert.equal(deleted.statusCode, 204);
    assert.equal(deleted.body, '');
    const again = await t.request({ method: 'GET', url: url(`${written.id}/`) });
    assert.equal(again.statusCode, 404);
  });

  test('user_access_level: manager for the creator and organization admins, editor for other members', async () => {
    const written = await createSurvey(t, { name: 'Access' });
    const { rows } = await t.db.pool.query<{ organization_id: string }>('SELECT organization_id FROM projects WHERE id = $1', [t.projectId]);
    const member = await otherUser(t, rows[0].organization_id, 'member');
    const admin = await otherUser(t, rows[0].organization_id, 'admin');
    const asMember = await t.request({ method: 'GET', url: url(`${written.id}/`), key: member.key });
    assert.equal(asMember.json().user_access_level, 'editor');
    const asAdmin = await t.request({ method: 'GET', url: url(`${written.id}/`), key: admin.key });
    assert.equal(asAdmin.json().user_access_level, 'manager');
  });
});

describe('scopes', () => {
  test('survey:read reads, survey:write writes', async () => {
    const written = await createSurvey(t);
    const reader = await keyWith(t, ['survey:read']);
    const writer = await keyWith(t, ['survey:write']);
    const flagsOnly = await keyWith(t, ['feature_flag:read']);

    assert.equal((await t.request({ method: 'GET', url: url(), key: reader })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: url(`${written.id}/`), key: reader })).statusCode, 200);
    const denied = await t.request({ method: 'POST', url: url(), payload: minimalSurvey(), key: reader });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().detail, "API key missing required scope 'survey:write'");
    assert.equal((await t.request({ method: 'PATCH', url: url(`${written.id}/`), payload: {}, key: reader })).statusCode, 403);
    assert.equal((await t.request({ method: 'DELETE', url: url(`${written.id}/`), key: reader })).statusCode, 403);
    assert.equal((await t.request({ method: 'GET', url: url(), key: flagsOnly })).statusCode, 403);
    // write implies read
    assert.equal((await t.request({ method: 'GET', url: url(`${written.id}/`), key: writer })).statusCode, 200);
    assert.equal((await t.request({ method: 'POST', url: url(), payload: minimalSurvey(), key: writer })).statusCode, 201);
    assert.equal((await t.request({ method: 'GET', url: url(), key: null })).statusCode, 401);
  });
});

describe('list', () => {
  let project: number;
  before(async () => {
    project = await otherProject(t);
    await createSurvey(t, { name: 'Checkout feedback', description: 'after paying' }, project);
    await createSurvey(t, { name: 'NPS', description: 'How likely is it that you would RECOMMEND us?' }, project);
    await createSurvey(t, { name: 'Old one', archived: true }, project);
    await createSurvey(t, { name: '100% literal_match' }, project);
  });
  const list = async (query: string) => {
    const response = await t.request({ method: 'GET', url: `${surveysUrl(project)}${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  };

  test('newest first, paginated with count/next/previous', async () => {
    const all = await list('');
    assert.equal(all.count, 4);
    assert.deepEqual((all.results as Json[]).map((s) => s.name), ['100% literal_match', 'Old one', 'NPS', 'Checkout feedback']);
    assert.equal(all.next, null);
    assert.equal(all.previous, null);
    const first = await list('?limit=2');
    assert.equal(first.count, 4);
    assert.equal(first.results.length, 2);
    assert.match(first.next, /limit=2&offset=2$/);
    assert.equal(first.previous, null);
    const second = await list('?limit=2&offset=2');
    assert.deepEqual((second.results as Json[]).map((s) => s.name), ['NPS', 'Checkout feedback']);
    assert.equal(second.next, null);
    assert.match(second.previous, /limit=2/);
    const clamped = await list('?limit=5000');
    assert.equal(clamped.results.length, 4);
  });

  test('bad limit or offset is a 400', async () => {
    for (const query of ['?limit=0', '?limit=-1', '?offset=-1', '?limit=abc']) {
      const response = await t.request({ method: 'GET', url: `${surveysUrl(project)}${query}` });
      assert.equal(response.statusCode, 400, query);
    }
  });

  test('search matches name and description, case-insensitively, literally', async () => {
    assert.deepEqual((await list('?search=checkout')).results.map((s: Json) => s.name), ['Checkout feedback']);
    assert.deepEqual((await list('?search=recommend')).results.map((s: Json) => s.name), ['NPS']);
    assert.deepEqual((await list('?search=100%25')).results.map((s: Json) => s.name), ['100% literal_match']);
    assert.deepEqual((await list('?search=l_m')).results.map((s: Json) => s.name), ['100% literal_match']);
    assert.equal((await list('?search=nothing-like-this')).count, 0);
  });

  test('archived=true keeps archived surveys only, archived=false the others', async () => {
    assert.deepEqual((await list('?archived=true')).results.map((s: Json) => s.name), ['Old one']);
    assert.equal((await list('?archived=false')).count, 3);
    assert.equal((await list('?archived=true&search=NPS')).count, 0);
  });

  test('next carries the other query parameters', async () => {
    const page = await list('?archived=false&limit=1');
    assert.match(page.next, /archived=false/);
    assert.match(page.next, /offset=1/);
  });
});

describe('iterations', () => {
  test('2 × 30 days from the start date, iteration 1 current', async () => {
    const written = await createSurvey(t, { start_date: '2024-05-22T14:40:09Z', iteration_count: 2, iteration_frequency_days: 30, schedule: 'recurring' });
    assert.deepEqual((written.iteration_start_dates as string[]).map((d) => new Date(d).toISOString()), [
      '2024-05-22T14:40:09.000Z',
      '2024-06-21T14:40:09.000Z',
    ]);
    assert.equal(written.current_iteration, 1);
    assert.equal(new Date(String(written.current_iteration_start_date)).toISOString(), '2024-05-22T14:40:09.000Z');
  });

  test('count and frequency without a start date: start dates are null, not []', async () => {
    const written = await createSurvey(t, { iteration_count: 3, iteration_frequency_days: 7 });
    assert.equal(written.iteration_start_dates, null);
    assert.equal(written.current_iteration, null);
    // Launching computes them.
    const launched = (await patchSurvey(t, written.id, { start_date: '2025-01-01T00:00:00Z', iteration_count: 3, iteration_frequency_days: 7 })).json();
    assert.equal(launched.iteration_start_dates.length, 3);
    assert.equal(new Date(launched.iteration_start_dates[2]).toISOString(), '2025-01-15T00:00:00.000Z');
    assert.equal(launched.current_iteration, 1);
  });

  test('sent start dates are overwritten; changing the count extends the list', async () => {
    const written = await createSurvey(t, {
      start_date: '2024-01-01T00:00:00Z',
      iteration_count: 2,
      iteration_frequency_days: 10,
      iteration_start_dates: ['2020-01-01T00:00:00Z'],
    });
    assert.equal(written.iteration_start_dates.length, 2);
    const longer = (await patchSurvey(t, written.id, { iteration_count: 4, iteration_frequency_days: 10 })).json();
    assert.equal(longer.iteration_start_dates.length, 4);
    assert.equal(new Date(longer.iteration_start_dates[3]).toISOString(), '2024-01-31T00:00:00.000Z');
  });

  test('a PATCH with iteration_count alone clears the frequency and the iteration data (PostHog quirk)', async () => {
    const written = await createSurvey(t, { start_date: '2024-01-01T00:00:00Z', iteration_count: 2, iteration_frequency_days: 10 });
    const patched = await patchSurvey(t, written.id, { iteration_count: 3 });
    assert.equal(patched.statusCode, 200, patched.body);
    const body = patched.json();
    assert.equal(body.iteration_count, 3);
    assert.equal(body.iteration_frequency_days, null);
    assert.deepEqual(body.iteration_start_dates, []);
    assert.equal(body.current_iteration, null);
    assert.equal(body.current_iteration_start_date, null);
  });

  test('a PATCH of the frequency alone keeps the count', async () => {
    const written = await createSurvey(t, { start_date: '2024-01-01T00:00:00Z', iteration_count: 2, iteration_frequency_days: 10 });
    const body = (await patchSurvey(t, written.id, { iteration_frequency_days: 20 })).json();
    assert.equal(body.iteration_count, 2);
    assert.equal(new Date(body.iteration_start_dates[1]).toISOString(), '2024-01-21T00:00:00.000Z');
  });

  test('the recurrence cannot go below the current iteration, and nothing of the PATCH remains', async () => {
    const written = await createSurvey(t, {
      start_date: '2024-01-01T00:00:00Z',
      iteration_count: 5,
      iteration_frequency_days: 10,
      targeting_flag_filters: { groups: [{ properties: [{ key: 'email', value: '@x.com', operator: 'icontains', type: 'person' }], rollout_percentage: 100 }] },
    });
    await t.db.pool.query('UPDATE surveys SET current_iteration = 3 WHERE id = $1', [written.id]);
    const refused = await patchSurvey(t, written.id, { iteration_count: 2, iteration_frequency_days: 10, remove_targeting_flag: true, name: 'Renamed' });
    assertValidation(refused, 'Cannot change survey recurrence to 2, should be at least 3', null);
    const read = await getSurvey(t, written.id);
    assert.equal(read.name, written.name);
    assert.equal(read.iteration_count, 5);
    assert.ok(read.targeting_flag, 'the targeting flag is still there');
    assert.equal((read.targeting_flag as Json).deleted, false);
    const fine = await patchSurvey(t, written.id, { iteration_count: 3, iteration_frequency_days: 10 });
    assert.equal(fine.statusCode, 200, fine.body);
  });

  test('iteration_count 0 means no iterations', async () => {
    const written = await createSurvey(t, { start_date: '2024-01-01T00:00:00Z', iteration_count: 0, iteration_frequency_days: 10 });
    assert.deepEqual(written.iteration_start_dates, []);
    assert.equal(written.current_iteration, null);
  });
});

describe('response sampling', () => {
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) + 'T00:00:00Z';

  test('day / 10 / 500: ten days of 50 more, 10 % more rollout each day, as a JSON-encoded string', async () => {
    const start = tomorrow();
    const written = await createSurvey(t, {
      response_sampling_start_date: start,
      response_sampling_interval_type: 'day',
      response_sampling_interval: 10,
      response_sampling_limit: 500,
    });
    assert.equal(typeof written.response_sampling_daily_limits, 'string');
    const schedule = JSON.parse(String(written.response_sampling_daily_limits)) as Json[];
    assert.equal(schedule.length, 10);
    assert.deepEqual(schedule.map((d) => d.daily_response_limit), [50, 100, 150, 200, 250, 300, 350, 400, 450, 500]);
    assert.deepEqual(schedule.map((d) => d.rollout_percentage), [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    assert.equal(new Date(schedule[0].date).toISOString(), new Date(start).toISOString());
    assert.equal(new Date(schedule[9].date).getTime() - new Date(schedule[0].date).getTime(), 9 * 86_400_000);
    const read = await getSurvey(t, written.id);
    assert.equal(read.response_sampling_daily_limits, written.response_sampling_daily_limits);
  });

  test('week / 1 / 10: seven days, the remainder on the first days, the last day at 100', async () => {
    const written = await createSurvey(t, {
      response_sampling_start_date: tomorrow(),
      response_sampling_interval_type: 'week',
      response_sampling_interval: 1,
      response_sampling_limit: 10,
    });
    const schedule = JSON.parse(String(written.response_sampling_daily_limits)) as Json[];
    assert.deepEqual(schedule.map((d) => d.daily_response_limit), [2, 4, 6, 7, 8, 9, 10]);
    assert.deepEqual(schedule.map((d) => d.rollout_percentage), [14.29, 28.57, 42.86, 57.14, 71.43, 85.71, 100]);
  });

  test('no start date, no interval type or a zero limit: no schedule', async () => {
    const noStart = await createSurvey(t, { response_sampling_interval_type: 'day', response_sampling_interval: 10 });
    assert.equal(noStart.response_sampling_daily_limits, null);
    const zero = await createSurvey(t, {
      response_sampling_start_date: tomorrow(),
      response_sampling_interval_type: 'day',
      response_sampling_interval: 10,
      response_sampling_limit: 0,
    });
    assert.equal(zero.response_sampling_daily_limits, null);
    const noType = await createSurvey(t, {
      response_sampling_start_date: tomorrow(),
      response_sampling_interval_type: null,
      response_sampling_interval: 10,
      response_sampling_limit: 5,
    });
    assert.equal(noType.response_sampling_daily_limits, null);
  });

  test('a schedule sent by the client is recomputed, and a PATCH recomputes it', async () => {
    const written = await createSurvey(t, { response_sampling_daily_limits: [{ nonsense: true }] });
    assert.equal(written.response_sampling_daily_limits, null);
    const patched = (await patchSurvey(t, written.id, {
      response_sampling_start_date: tomorrow(),
      response_sampling_interval_type: 'month',
      response_sampling_interval: 1,
      response_sampling_limit: 30,
    })).json();
    const schedule = JSON.parse(patched.response_sampling_daily_limits) as Json[];
    assert.equal(schedule.length, 30);
    assert.equal(schedule[29].daily_response_limit, 30);
    assert.equal(schedule[29].rollout_percentage, 100);
  });
});

describe('OpenAPI', () => {
  test('the survey routes are documented with their scopes and shapes', async () => {
    const response = await t.request({ method: 'GET', url: '/api/schema/', key: null });
    const doc = response.json();
    const base = '/api/projects/{project_id}/surveys';
    const op = (path: string, method: string) => doc.paths[`${base}${path}`]?.[method] ?? doc.paths[`${base}${path}/`]?.[method];
    const expectations: [string, string, string][] = [
      ['/', 'get', 'survey:read'],
      ['/', 'post', 'survey:write'],
      ['/{id}', 'get', 'survey:read'],
      ['/{id}', 'patch', 'survey:write'],
      ['/{id}', 'delete', 'survey:write'],
      ['/{id}/activity', 'get', 'activity_log:read'],
      ['/activity', 'get', 'activity_log:read'],
      ['/{id}/duplicate_to_projects', 'post', 'survey:write'],
    ];
    for (const [path, method, scope] of expectations) {
      const operation = op(path === '/' ? '' : path, method) ?? op(path, method);
      assert.ok(operation, `${method} ${path}`);
      assert.equal(operation['x-required-scope'], scope, `${method} ${path}`);
    }
    const created = JSON.stringify(inlineRefs(doc, op('', 'post') ?? op('/', 'post')));
    for (const field of ['targeting_flag_filters', 'remove_targeting_flag', '_create_in_folder']) assert.ok(created.includes(`"${field}"`), field);
    const listed = JSON.stringify(inlineRefs(doc, op('', 'get') ?? op('/', 'get')));
    assert.ok(listed.includes('"feature_flag_keys"'));
    assert.ok(listed.includes('"user_access_level"'));
  });
});
