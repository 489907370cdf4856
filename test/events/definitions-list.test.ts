import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertValidation, definitionsUrl, insertDefinitionRow, secondProject, type Json } from './definitions-support.ts';

let t: TestApp;

/** name, last_seen_at (created_at the same unless given), hidden, tags. */
const FIXTURES: { name: string; last_seen_at: string | null; created_at?: string | null; hidden?: boolean; tags?: string[] }[] = [
  { name: '$pageview', last_seen_at: '2024-03-10T01:00:00Z' },
  { name: 'entered_free_trial', last_seen_at: '2024-03-10T10:00:00Z' },
  { name: 'installed_app', last_seen_at: '2024-03-09T23:00:00Z', created_at: '2024-01-01T00:00:00Z' },
  { name: 'watched_movie', last_seen_at: '2024-03-08T00:00:00Z', hidden: true, tags: ['media', 'growth'] },
  { name: 'rated_app', last_seen_at: null, tags: ['growth'] },
  { name: 'z_event_1', last_seen_at: null },
  { name: 'z_event_100', last_seen_at: null },
  { name: 'z_event_2', last_seen_at: null },
  { name: 'Zebra', last_seen_at: null },
  { name: 'a_b', last_seen_at: '2024-03-01T12:00:00Z' },
  { name: 'axb', last_seen_at: '2024-03-01T12:00:00Z' },
  { name: '50%_off', last_seen_at: null },
];

/** The default order: last_seen_at::date DESC NULLS LAST, then name byte-wise. */
const DEFAULT_ORDER = [
  '$pageview', 'entered_free_trial', 'installed_app', 'watched_movie', 'a_b', 'axb',
  '50%_off', 'Zebra', 'rated_app', 'z_event_1', 'z_event_100', 'z_event_2',
];
const NULLS_BY_NAME = ['50%_off', 'Zebra', 'rated_app', 'z_event_1', 'z_event_100', 'z_event_2'];

before(async () => {
  t = await startTestApp();
  // Databases created with a C collation order byte-wise anyway; give the column a linguistic
  // collation (where ICU is there) so that the tests below prove the explicit byte-wise order.
  const icu = await t.db.pool.query(`SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'`);
  if (icu.rowCount) await t.db.pool.query('ALTER TABLE event_definitions ALTER COLUMN name TYPE text COLLATE "und-x-icu"');
  for (const fixture of FIXTURES) await insertDefinitionRow(t, fixture);
  const other = await secondProject(t);
  await insertDefinitionRow(t, { name: 'foreign_event', last_seen_at: '2024-03-10T00:00:00Z' }, other);
});
after(async () => {
  await t.close();
});

async function list(query = ''): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}${query ? `?${query}` : ''}` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}
const names = async (query = '') => (await list(query)).results.map((d: Json) => d.name);

test('the default order is last_seen_at::date DESC NULLS LAST, then name byte-wise; only this project', async () => {
  const page = await list();
  assert.equal(page.count, 12);
  assert.equal(page.next, null);
  assert.equal(page.previous, null);
  assert.deepEqual(page.results.map((d: Json) => d.name), DEFAULT_ORDER);
  assert.equal(page.results[0].last_seen_at, '2024-03-10T01:00:00.000Z');
});

test('ordering by one key: ASC puts NULLs first, DESC last; name breaks ties', async () => {
  assert.deepEqual(await names('ordering=-last_seen_at'), [
    'entered_free_trial', '$pageview', 'installed_app', 'watched_movie', 'a_b', 'axb', ...NULLS_BY_NAME,
  ]);
  assert.deepEqual(await names('ordering=last_seen_at'), [
    ...NULLS_BY_NAME, 'a_b', 'axb', 'watched_movie', 'installed_app', '$pageview', 'entered_free_trial',
  ]);
  assert.deepEqual(await names('ordering=name'), [
    '$pageview', '50%_off', 'Zebra', 'a_b', 'axb', 'entered_free_trial', 'installed_app', 'rated_app', 'watched_movie',
    'z_event_1', 'z_event_100', 'z_event_2',
  ]);
  assert.deepEqual(await names('ordering=-name'), (await names('ordering=name')).reverse());
  assert.deepEqual(await names('ordering=-created_at'), [
    'entered_free_trial', '$pageview', 'watched_movie', 'a_b', 'axb', 'installed_app', ...NULLS_BY_NAME,
  ]);
  assert.deepEqual(await names('ordering=created_at::date'), [
    ...NULLS_BY_NAME, 'installed_app', 'a_b', 'axb', 'watched_movie', '$pageview', 'entered_free_trial',
  ]);
});

test('ordering keys repeat or comma-join; unknown keys are dropped', async () => {
  const expected = [
    'entered_free_trial', '$pageview', 'installed_app', 'watched_movie', 'axb', 'a_b',
    'z_event_2', 'z_event_100', 'z_event_1', 'rated_app', 'Zebra', '50%_off',
  ];
  assert.deepEqual(await names('ordering=-last_seen_at::date&ordering=-name'), expected);
  assert.deepEqual(await names(`ordering=${encodeURIComponent('-last_seen_at::date,-name')}`), expected);
  assert.deepEqual(await names('ordering=event'), DEFAULT_ORDER);
  assert.deepEqual(await names('ordering=event&ordering=-name'), (await names('ordering=name')).reverse());
});

test('event_type: custom leaves $ names out, posthog keeps only them, all and action_event keep everything', async () => {
  assert.deepEqual(await names('event_type=event_custom'), DEFAULT_ORDER.filter((n) => !n.startsWith('$')));
  assert.deepEqual(await names('event_type=event_posthog'), ['$pageview']);
  for (const type of ['event', 'all', 'action_event']) assert.deepEqual(await names(`event_type=${type}`), DEFAULT_ORDER, type);
  const bad = await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}?event_type=bogus` });
  assertValidation(bad, 'Not a valid event type. Use one of: event, event_custom, event_posthog, all, action_event.', 'event_type', 'invalid_choice');
});

test('search: every space-separated term must match, case-insensitively; % and _ are literal', async () => {
  assert.deepEqual(await names('search=free%20tri'), ['entered_free_trial']);
  assert.deepEqual(await names('search=ed%20mov'), ['watched_movie']);
  assert.deepEqual(await names('search=APP'), ['installed_app', 'rated_app']);
  assert.deepEqual(await names('search=app%20rated'), ['rated_app']);
  // As wildcards, `a_b` would also match `axb`, and `%` everything.
  assert.deepEqual(await names('search=a_b'), ['a_b']);
  assert.deepEqual(await names('search=%25'), ['50%_off']);
  assert.deepEqual(await names('search=%20%20'), DEFAULT_ORDER);
  assert.deepEqual(await names('search=nothing-like-this'), []);
});

test('exclude_hidden=true (any case) leaves hidden definitions out', async () => {
  const visible = DEFAULT_ORDER.filter((n) => n !== 'watched_movie');
  assert.deepEqual(await names('exclude_hidden=true'), visible);
  assert.deepEqual(await names('exclude_hidden=TRUE'), visible);
  assert.deepEqual(await names('exclude_hidden=false'), DEFAULT_ORDER);
});

test('tags keeps definitions with any of the tags (JSON or comma list); bad JSON is ignored', async () => {
  assert.deepEqual(await names(`tags=${encodeURIComponent('["growth"]')}`), ['watched_movie', 'rated_app']);
  assert.deepEqual(await names(`tags=${encodeURIComponent('["media","nope"]')}`), ['watched_movie']);
  assert.deepEqual(await names('tags=GROWTH'), ['watched_movie', 'rated_app']);
  assert.deepEqual(await names(`tags=${encodeURIComponent('[oops')}`), DEFAULT_ORDER);
});

test('excluded_properties leaves named events out; anything but a JSON list of strings is a 400', async () => {
  const page = await list(`excluded_properties=${encodeURIComponent('["$pageview","a_b"]')}`);
  assert.equal(page.count, 10);
  assert.deepEqual(page.results.map((d: Json) => d.name), DEFAULT_ORDER.filter((n) => n !== '$pageview' && n !== 'a_b'));
  for (const bad of ['[oops', '{"a":1}', '[1,2]', '"a_b"']) {
    const response = await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}?excluded_properties=${encodeURIComponent(bad)}` });
    assertValidation(response, 'Must be a JSON-encoded list of strings.', 'excluded_properties', 'invalid_input');
  }
});

test('names takes exact names, repeated or comma-joined', async () => {
  assert.deepEqual(await names('names=a_b&names=axb'), ['a_b', 'axb']);
  assert.deepEqual(await names('names=a_b,axb,nope'), ['a_b', 'axb']);
  assert.deepEqual(await names('names=A_B'), []);
});

test('filters combine', async () => {
  assert.deepEqual(await names('event_type=event_custom&search=a&exclude_hidden=true&ordering=name&names=a_b,axb,rated_app,watched_movie,$pageview'), [
    'a_b', 'axb', 'rated_app',
  ]);
});

test('paginates with limit and offset; next and previous keep the other parameters', async () => {
  const first = await list('ordering=name&limit=5');
  assert.equal(first.count, 12);
  assert.equal(first.results.length, 5);
  const next = new URL(first.next);
  assert.equal(next.searchParams.get('offset'), '5');
  assert.equal(next.searchParams.get('ordering'), 'name');
  const third = await list('ordering=name&limit=5&offset=10');
  assert.deepEqual(third.results.map((d: Json) => d.name), ['z_event_100', 'z_event_2']);
  assert.equal(third.next, null);
  assert.equal(new URL(third.previous).searchParams.get('offset'), '5');
  const bad = await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}?limit=0` });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().attr, 'limit');
});
