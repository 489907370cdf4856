import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFlag, flagsUrl, patchFlag, type Json } from './flag-client.ts';

let t: TestApp;
const ids: Record<string, number> = {};

async function list(query: string): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${flagsUrl()}?${query}` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

async function keys(query: string): Promise<string[]> {
  return ((await list(query)).results as Json[]).map((f) => String(f.key)).sort();
}

const DAY = 24 * 60 * 60 * 1000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();

before(async () => {
  t = await startTestApp();
  const make = async (body: Json) => {
    const flag = await createFlag(t, body);
    ids[String(body.key)] = Number(flag.id);
  };
  await make({ key: 'bool-on', name: 'Checkout button', filters: { groups: [{ properties: [], rollout_percentage: 50 }] }, tags: ['web'] });
  await make({ key: 'bool-off', active: false, tags: ['app'] });
  await make({
    key: 'multi',
    filters: {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
    },
    evaluation_runtime: 'server',
  });
  await make({ key: 'remote', is_remote_configuration: true, evaluation_runtime: 'client', filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"a":1}' } } });
  // Old and fully rolled out, called recently: stale.
  await make({ key: 'old-full', created_at: daysAgo(60), last_called_at: daysAgo(1), filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  // Old and never called: inactive.
  await make({ key: 'old-quiet', created_at: daysAgo(45), filters: { groups: [{ properties: [], rollout_percentage: 20 }] } });
  // Old, called recently, partial rollout: active.
  await make({ key: 'old-busy', created_at: daysAgo(90), last_called_at: daysAgo(2), filters: { groups: [{ properties: [], rollout_percentage: 20 }] }, tags: ['web', 'legacy'], evaluation_tags: ['web'] });
  await make({ key: 'gone' });
  await patchFlag(t, ids.gone, { deleted: true });
});
after(async () => {
  await t.close();
});

describe('list', () => {
  test('lists live flags newest first with count, without deleted ones', async () => {
    const page = await list('');
    assert.equal(page.count, 7);
    assert.equal(page.next, null);
    assert.equal(page.previous, null);
    const results = page.results as Json[];
    // created_at decides the order, and imported flags carry old ones.
    assert.deepEqual(results.map((f) => f.key), ['remote', 'multi', 'bool-off', 'bool-on', 'old-quiet', 'old-full', 'old-busy']);
    assert.ok(!results.some((f) => f.key === 'gone'));
  });

  test('active=true, active=false and active=STALE', async () => {
    assert.deepEqual(await keys('active=false'), ['bool-off']);
    assert.ok(!(await keys('active=true')).includes('bool-off'));
    assert.deepEqual(await keys('active=STALE'), ['old-full', 'old-quiet']);
    const stale = (await list('active=STALE')).results as Json[];
    assert.deepEqual(stale.map((f) => f.status).sort(), ['inactive', 'stale']);
  });

  test('an unknown active value is a 400 naming the parameter', async () => {
    const response = await t.request({ method: 'GET', url: `${flagsUrl()}?active=maybe` });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().attr, 'active');
    assert.equal(response.json().detail, '"maybe" is not a valid choice.');
    assert.equal(response.json().code, 'invalid_choice');
  });

  test('search matches key or name, case-insensitively, with LIKE characters taken literally', async () => {
    assert.deepEqual(await keys('search=CHECKOUT'), ['bool-on']);
    assert.deepEqual(await keys('search=old-'), ['old-busy', 'old-full', 'old-quiet']);
    assert.deepEqual(await keys('search=%25'), []);
  });

  test('type=boolean, multivariant, remote_config, experiment', async () => {
    assert.deepEqual(await keys('type=multivariant'), ['multi']);
    assert.ok(!(await keys('type=boolean')).includes('multi'));
    assert.equal((await keys('type=boolean')).length, 6);
    assert.deepEqual(await keys('type=remote_config'), ['remote']);
    assert.deepEqual(await keys('type=experiment'), []);
  });

  test('evaluation_runtime: both means all', async () => {
    assert.deepEqual(await keys('evaluation_runtime=server'), ['multi']);
    assert.deepEqual(await keys('evaluation_runtime=client'), ['remote']);
    assert.equal((await keys('evaluation_runtime=both')).length, 5);
  });

  test('tags as a JSON list or a comma list keep flags with any of them', async () => {
    assert.deepEqual(await keys(`tags=${encodeURIComponent('["web"]')}`), ['bool-on', 'old-busy']);
    assert.deepEqual(await keys('tags=legacy,app'), ['bool-off', 'old-busy']);
  });

  test('has_evaluation_tags', async () => {
    assert.deepEqual(await keys('has_evaluation_tags=true'), ['old-busy']);
    assert.equal((await keys('has_evaluation_tags=false')).length, 6);
  });

  test('excluded_properties leaves out the listed keys; invalid JSON is ignored', async () => {
    assert.ok(!(await keys(`excluded_properties=${encodeURIComponent('["multi","remote"]')}`)).some((k) => k === 'multi' || k === 'remote'));
    assert.equal((await keys('excluded_properties=not-json')).length, 7);
  });

  test('created_by_id matches the creator, and a non-integer is a 400', async () => {
    const me = (await list('')).results as Json[];
    const creator = (me[0].created_by as Json).id;
    assert.equal((await keys(`created_by_id=${creator}`)).length, 7);
    assert.deepEqual(await keys('created_by_id=999'), []);
    const bad = await t.request({ method: 'GET', url: `${flagsUrl()}?created_by_id=abc` });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().attr, 'created_by_id');
  });

  test('filters combine with AND', async () => {
    assert.deepEqual(await keys('active=true&tags=web&search=busy'), ['old-busy']);
  });

  test('pagination: absolute next/previous keeping other parameters; edges', async () => {
    const first = await list('limit=3&search=o');
    assert.equal((first.results as Json[]).length, 3);
    const next = new URL(String(first.next));
    assert.equal(next.protocol, 'http:');
    assert.equal(next.searchParams.get('limit'), '3');
    assert.equal(next.searchParams.get('offset'), '3');
    assert.equal(next.searchParams.get('search'), 'o');
    assert.equal(first.previous, null);
    const second = await list(`${next.searchParams.toString()}`);
    const previous = new URL(String(second.previous));
    assert.equal(previous.searchParams.get('offset'), null);
    assert.equal(previous.searchParams.get('search'), 'o');
    const beyond = await list('limit=3&offset=100');
    assert.equal(beyond.count, 7);
    assert.deepEqual(beyond.results, []);
    assert.equal(beyond.next, null);
    assert.ok(beyond.previous);
    const exact = await list('limit=7');
    assert.equal(exact.next, null);
    const clamped = await list('limit=5000');
    assert.equal((clamped.results as Json[]).length, 7);
  });

  test('bad limit and offset are 400 naming the parameter', async () => {
    for (const [query, attr] of [['limit=-1', 'limit'], ['limit=abc', 'limit'], ['offset=-5', 'offset'], ['limit=1.5', 'limit'], ['limit=0', 'limit']]) {
      const response = await t.request({ method: 'GET', url: `${flagsUrl()}?${query}` });
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.json().type, 'validation_error');
      assert.equal(response.json().attr, attr, query);
    }
  });

  test('order by key ascending', async () => {
    const results = (await list('order=key')).results as Json[];
    const ordered = results.map((f) => String(f.key));
    assert.deepEqual(ordered, [...ordered].sort());
  });
});
