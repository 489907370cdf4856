import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { keyWith, otherProject } from '../helpers/api.ts';
import { sendBatch } from '../surveys/responses-fixtures.ts';

type Json = Record<string, any>;

let t: TestApp;
const eventsUrl = (query = '', projectId: number | string = 1) => `/api/projects/${projectId}/events/${query}`;
const base = Date.now() - 10 * 86_400_000;
const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
const ids: Record<string, string> = {};

before(async () => {
  t = await startTestApp();
  for (const name of ['view1', 'view2', 'click', 'signup', 'alias', 'tieA', 'tieB', 'future']) ids[name] = randomUUID();
  const tie = at(50);
  await sendBatch(t, [
    { event: '$pageview', distinct_id: 'anna', uuid: ids.view1, timestamp: at(1), properties: { $current_url: 'https://x.test/a', plan: 'free', $set: { email: 'anna@x.test', name: 'Anna', secret: 'not shown' } } },
    { event: '$pageview', distinct_id: 'ben', uuid: ids.view2, timestamp: at(2), properties: { $current_url: 'https://x.test/pricing', plan: 'pro', seats: 12 } },
    { event: '$autocapture', distinct_id: 'anna', uuid: ids.click, timestamp: at(3), properties: { $elements_chain: 'button.cta:text="Buy"', seats: 3 } },
    { event: 'signed up', distinct_id: 'ben', uuid: ids.signup, timestamp: at(4), properties: { plan: 'pro', $set: { email: 'ben@x.test' } } },
    // anna's second device, merged into her person.
    { event: '$identify', distinct_id: 'anna', uuid: ids.alias, timestamp: at(5), properties: { $anon_distinct_id: 'anna-phone' } },
    { event: 'tie', distinct_id: 'cy', uuid: ids.tieA, timestamp: tie, properties: {} },
    { event: 'tie', distinct_id: 'cy', uuid: ids.tieB, timestamp: tie, properties: {} },
  ]);
  await sendBatch(t, [{ event: '$pageview', distinct_id: 'anna-phone', timestamp: at(6), properties: { $current_url: 'https://x.test/phone' } }]);
});
after(() => t.close());

async function list(query = '', key?: string): Promise<Json> {
  const response = await t.request({ method: 'GET', url: eventsUrl(query), ...(key ? { key } : {}) });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

const names = (body: Json) => body.results.map((e: Json) => e.event);

test('newest first, PostHog’s item shape, the current person with a few properties', async () => {
  const body = await list();
  assert.equal(body.next, null);
  assert.equal(body.results.length, 8);
  assert.deepEqual(names(body).slice(0, 3), ['tie', 'tie', '$pageview']);
  const click = body.results.find((e: Json) => e.id === ids.click);
  assert.deepEqual(Object.keys(click).sort(), ['distinct_id', 'elements', 'elements_chain', 'event', 'id', 'person', 'properties', 'timestamp']);
  assert.equal(click.distinct_id, 'anna');
  assert.equal(click.event, '$autocapture');
  assert.equal(click.elements_chain, 'button.cta:text="Buy"');
  assert.deepEqual(click.elements, []);
  assert.equal(click.properties.seats, 3);
  assert.match(click.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  assert.equal(Date.parse(click.timestamp), Date.parse(at(3)));
  assert.deepEqual(click.person.properties, { email: 'anna@x.test', name: 'Anna' });
  assert.deepEqual(click.person.distinct_ids, ['anna']);
  assert.equal(typeof click.person.is_identified, 'boolean');
  assert.match(click.person.id, /^[0-9a-f-]{36}$/);
});

test('filters: event, distinct_id, person_id (every distinct id of the person), before, after', async () => {
  assert.deepEqual(names(await list('?event=%24pageview')), ['$pageview', '$pageview', '$pageview']);
  assert.deepEqual((await list('?distinct_id=ben')).results.map((e: Json) => e.id), [ids.signup, ids.view2]);
  const anna = (await list('?distinct_id=anna')).results[0].person.id;
  const byPerson = await list(`?person_id=${anna}`);
  assert.deepEqual(
    byPerson.results.map((e: Json) => e.distinct_id),
    ['anna-phone', 'anna', 'anna', 'anna'],
  );
  const { rows } = await t.db.pool.query<{ id: number }>('SELECT id FROM persons WHERE uuid = $1', [anna]);
  assert.equal((await list(`?person_id=${rows[0].id}`)).results.length, 4);
  assert.deepEqual((await list(`?person_id=${randomUUID()}`)).results, []);
  assert.deepEqual(
    (await list(`?after=${encodeURIComponent(at(2))}&before=${encodeURIComponent(at(5))}`)).results.map((e: Json) => e.id),
    [ids.signup, ids.click],
  );
  assert.equal((await list('?after=-1d')).results.length, 0);
  assert.equal((await list('?before=-1d')).results.length, 8);
  assert.deepEqual(
    (await list('?orderBy=%5B%22timestamp%22%5D&limit=2')).results.map((e: Json) => e.id),
    [ids.view1, ids.view2],
  );
});

test('properties: event and person property filters, groups, operators', async () => {
  const q = (filters: unknown) => `?properties=${encodeURIComponent(JSON.stringify(filters))}`;
  assert.deepEqual((await list(q([{ key: 'plan', value: 'pro' }]))).results.map((e: Json) => e.id), [ids.signup, ids.view2]);
  assert.deepEqual((await list(q([{ key: 'plan', value: 'pro' }, { key: 'event', value: 'x' }]))).results, []);
  assert.deepEqual((await list(q([{ key: 'seats', value: 5, operator: 'gt', type: 'event' }]))).results.map((e: Json) => e.id), [ids.view2]);
  assert.deepEqual(
    (await list(q([{ key: '$current_url', value: 'PRICING', operator: 'icontains' }]))).results.map((e: Json) => e.id),
    [ids.view2],
  );
  const byEmail = await list(q([{ key: 'email', value: 'anna@x.test', type: 'person' }]));
  assert.deepEqual(byEmail.results.map((e: Json) => e.distinct_id), ['anna-phone', 'anna', 'anna', 'anna']);
  const either = await list(q({ type: 'OR', values: [{ key: 'plan', value: 'free' }, { key: 'email', value: 'ben@x.test', type: 'person' }] }));
  assert.deepEqual(either.results.map((e: Json) => e.id).sort(), [ids.view1, ids.view2, ids.signup].sort());
  assert.deepEqual((await list(q([{ key: 'seats', operator: 'is_set' }]))).results.length, 2);
});

test('pagination: next moves past the page (ties at one timestamp neither repeated nor skipped), filters kept', async () => {
  const seen: string[] = [];
  let url: string | null = eventsUrl('?limit=1&after=-30d');
  let pages = 0;
  while (url) {
    const response = await t.request({ method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, '') });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    seen.push(...body.results.map((e: Json) => e.id));
    url = body.next;
    if (url) assert.match(url, /after=-30d/);
    pages += 1;
    assert.ok(pages < 20);
  }
  const all = (await list()).results.map((e: Json) => e.id);
  assert.deepEqual(seen, all);
  assert.ok(seen.includes(ids.tieA) && seen.includes(ids.tieB));
});

test('limit: default 100, clamped to 1000, below 1 or not an integer → 400', async () => {
  const rows = Array.from({ length: 1100 }, (_, i) => ({
    event: 'bulk',
    distinct_id: `bulk-${i % 7}`,
    timestamp: new Date(base - 86_400_000 + i * 1000).toISOString(),
    properties: { i },
  }));
  await sendBatch(t, rows);
  const first = await list('?event=bulk');
  assert.equal(first.results.length, 100);
  assert.ok(first.next);
  assert.equal((await list('?event=bulk&limit=5000')).results.length, 1000);
  for (const limit of ['0', '-5', 'abc', '1.5']) {
    const response = await t.request({ method: 'GET', url: eventsUrl(`?limit=${limit}`) });
    assert.equal(response.statusCode, 400, `${limit}: ${response.body}`);
    assert.equal(response.json().attr, 'limit');
  }
});

test('bad input → 400 naming the argument', async () => {
  const cases: [string, string][] = [
    ['?properties=%5Bnot%20json', 'properties'],
    ['?properties=%22text%22', 'properties'],
    [`?properties=${encodeURIComponent(JSON.stringify([{ key: 'a', value: 1, type: 'cohort' }]))}`, 'properties'],
    [`?properties=${encodeURIComponent(JSON.stringify([{ key: 'a', value: 1, operator: 'regex' }]))}`, 'properties'],
    [`?properties=${encodeURIComponent(JSON.stringify(Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, value: 1 }))))}`, 'properties'],
    [`?properties=${'x'.repeat(20_001)}`, 'properties'],
    ['?before=yesterday', 'before'],
    ['?after=2024-02-30', 'after'],
    ['?before=2024-01-01&before_uuid=nope', 'before_uuid'],
    ['?orderBy=%5B%22event%22%5D', 'orderBy'],
    ['?orderBy=%5Bbroken', 'orderBy'],
    ['?person_id=robert', 'person_id'],
  ];
  for (const [query, attr] of cases) {
    const response = await t.request({ method: 'GET', url: eventsUrl(query) });
    assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
    const body = response.json();
    assert.equal(body.type, 'validation_error', query);
    assert.equal(body.attr, attr, `${query}: ${response.body}`);
  }
});

test('other projects see none of these events; scope query:read; only GET', async () => {
  const other = await otherProject(t);
  const response = await t.request({ method: 'GET', url: eventsUrl('', other) });
  assert.equal(response.statusCode, 200, response.body);
  assert.deepEqual(response.json(), { next: null, results: [] });
  const reader = await keyWith(t, ['query:read']);
  assert.equal((await list('?limit=1', reader)).results.length, 1);
  const flagsOnly = await keyWith(t, ['feature_flag:read']);
  assert.equal((await t.request({ method: 'GET', url: eventsUrl(), key: flagsOnly })).statusCode, 403);
  assert.equal((await t.request({ method: 'GET', url: eventsUrl(), key: null })).statusCode, 401);
  assert.equal((await t.request({ method: 'POST', url: eventsUrl(), payload: {} })).statusCode, 405);
  const missing = await t.request({ method: 'GET', url: eventsUrl('', 999999) });
  assert.ok([403, 404].includes(missing.statusCode), missing.body);
});
