import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { trendRows } from '../../src/dashboards/store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertError, keyWith, otherProject, type Json } from '../cohorts/support.ts';
import { createFlag, flagsUrl, getFlag, patchFlag } from './flag-client.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

let t: TestApp;
let token: string;
let flag: Json;
let otherProjectId: number;

const dashboardsUrl = (projectId: number = t.projectId) => `/api/projects/${projectId}/dashboards/`;
const action = (id: unknown, name: string, key?: string | null, projectId: number = t.projectId) =>
  t.request({ method: 'POST', url: `${flagsUrl(projectId)}${id}/${name}/`, payload: {}, key });

/** A time on the UTC day `daysAgo` days back: noon, or 00:30 for today (not in the future at any hour but the first). */
function at(daysAgo: number): string {
  const now = new Date();
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - daysAgo * DAY_MS;
  const minutes = daysAgo === 0 ? 30 : 12 * 60;
  return new Date(day + minutes * 60 * 1000).toISOString();
}

const called = (distinctId: string, flagKey: string, response: unknown, timestamp: string) => ({
  event: '$feature_flag_called',
  distinct_id: distinctId,
  properties: { $feature_flag: flagKey, $feature_flag_response: response },
  timestamp,
});

async function ingest(batch: Json[]): Promise<void> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/batch/',
    payload: JSON.stringify({ api_key: token, batch }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(response.statusCode, 200, response.body);
}

async function dashboard(id: unknown): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${dashboardsUrl()}${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

const insightNamed = (board: Json, name: string) => board.tiles.map((tile: Json) => tile.insight).find((insight: Json) => insight.name === name);

/** `{label: [value at day -1, value today]}` plus counts, for compact assertions. */
function lastTwoDays(result: Json[]): Record<string, { yesterday: number; today: number; count: number }> {
  return Object.fromEntries(
    result.map((series) => [series.label, { yesterday: series.data.at(-2), today: series.data.at(-1), count: series.count }]),
  );
}

before(async () => {
  t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  otherProjectId = await otherProject(t);
  flag = await createFlag(t, {
    key: 'usage-flag',
    filters: {
      groups: [{ properties: [], rollout_percentage: 100 }],
      multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
    },
  });
  await ingest([
    called('u1', 'usage-flag', 'control', at(0)),
    called('u1', 'usage-flag', 'control', at(0)),
    called('u2', 'usage-flag', 'control', at(0)),
    called('u3', 'usage-flag', 'test', at(0)),
    called('u1', 'usage-flag', 'control', at(1)),
    called('u4', 'usage-flag', false, at(1)),
    called('u1', 'usage-flag', 'control', at(40)), // outside the 30-day window
    called('u1', 'other-flag', true, at(0)), // another flag
    { event: '$pageview', distinct_id: 'u1', properties: { $feature_flag: 'usage-flag' }, timestamp: at(0) },
    { event: '$feature_view', distinct_id: 'u1', properties: { feature_flag: 'usage-flag', feature_flag_variant: 'test' }, timestamp: at(0) },
    { event: '$feature_view', distinct_id: 'u1', properties: { feature_flag: 'usage-flag', feature_flag_variant: 'test' }, timestamp: at(0) },
    { event: '$feature_view', distinct_id: 'u2', properties: { feature_flag: 'usage-flag', feature_flag_variant: 'control' }, timestamp: at(1) },
    { event: '$feature_interaction', distinct_id: 'u3', properties: { feature_flag: 'usage-flag', feature_flag_variant: 'test' }, timestamp: at(0) },
  ]);
});
after(async () => {
  await t.close();
});

describe('dashboard', () => {
  test('ensures the usage dashboard’s insights, computed per day and variant from $feature_flag_called', async () => {
    assert.equal(typeof flag.usage_dashboard, 'number');
    // Created with the flag; the action then finds them and changes nothing.
    assert.deepEqual(
      (await dashboard(flag.usage_dashboard)).tiles.map((tile: Json) => tile.insight.name),
      ['Feature Flag Called Total Volume', 'Feature Flag calls made by unique users per variant'],
    );

    const response = await action(flag.id, 'dashboard');
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { success: true });

    const board = await dashboard(flag.usage_dashboard);
    assert.equal(board.name, 'Generated Dashboard: usage-flag Usage');
    assert.deepEqual(board.tiles.map((tile: Json) => tile.insight.name), [
      'Feature Flag Called Total Volume',
      'Feature Flag calls made by unique users per variant',
    ]);
    const calls = insightNamed(board, 'Feature Flag Called Total Volume');
    assert.equal(calls.kind, 'TrendsQuery');
    assert.equal(calls.query.kind, 'InsightVizNode');
    assert.deepEqual(calls.query.source.breakdownFilter, { breakdown: '$feature_flag_response', breakdown_type: 'event' });
    assert.equal(calls.result.length, 3);
    assert.equal(calls.result[0].days.length, 31);
    assert.equal(calls.result[0].days.at(-1), new Date().toISOString().slice(0, 10));
    assert.deepEqual(lastTwoDays(calls.result), {
      control: { yesterday: 1, today: 3, count: 4 },
      test: { yesterday: 0, today: 1, count: 1 },
      false: { yesterday: 1, today: 0, count: 1 },
    });
    assert.deepEqual(calls.result.map((series: Json) => series.breakdown_value), ['control', 'false', 'test']);
    assert.equal(calls.result[0].data.reduce((a: number, b: number) => a + b, 0), 4);

    const users = insightNamed(board, 'Feature Flag calls made by unique users per variant');
    assert.deepEqual(lastTwoDays(users.result), {
      control: { yesterday: 1, today: 2, count: 3 },
      test: { yesterday: 0, today: 1, count: 1 },
      false: { yesterday: 1, today: 0, count: 1 },
    });
  });

  test('is idempotent: the same dashboard and the same two insights', async () => {
    assert.equal((await action(flag.id, 'dashboard')).statusCode, 200);
    assert.equal((await action(flag.id, 'dashboard')).statusCode, 200);
    const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM insights WHERE dashboard_id = $1', [flag.usage_dashboard]);
    assert.equal(rows[0].n, 2);
    assert.equal((await getFlag(t, flag.id)).json().usage_dashboard, flag.usage_dashboard);
  });

  test('creates the usage dashboard when the flag has none (or it was deleted) and links it to the flag', async () => {
    const bare = await createFlag(t, { key: 'no-board', _should_create_usage_dashboard: false });
    assert.equal(bare.usage_dashboard, null);
    assert.equal((await action(bare.id, 'dashboard')).statusCode, 200);
    const linked = (await getFlag(t, bare.id)).json();
    assert.equal(typeof linked.usage_dashboard, 'number');
    assert.equal(linked.version, bare.version);
    const board = await dashboard(linked.usage_dashboard);
    assert.equal(board.name, 'Generated Dashboard: no-board Usage');
    assert.equal(board.tiles.length, 2);

    await t.db.pool.query('UPDATE dashboards SET deleted = true WHERE id = $1', [linked.usage_dashboard]);
    assert.equal((await action(bare.id, 'dashboard')).statusCode, 200);
    const relinked = (await getFlag(t, bare.id)).json();
    assert.notEqual(relinked.usage_dashboard, linked.usage_dashboard);
    assertError(await t.request({ method: 'GET', url: `${dashboardsUrl()}${linked.usage_dashboard}/` }), 404, { code: 'not_found' });
  });

  test('404 for unknown flags and flags of another project; scopes', async () => {
    const foreign = (await t.request({ method: 'POST', url: flagsUrl(otherProjectId), payload: { key: 'foreign-board' } })).json();
    for (const name of ['dashboard', 'enrich_usage_dashboard']) {
      assertError(await action(999999, name), 404, { code: 'not_found' });
      assertError(await action(foreign.id, name), 404, { code: 'not_found' });
      assertError(await action(flag.id, name, null), 401, { code: 'not_authenticated' });
      assertError(await action(flag.id, name, await keyWith(t, ['feature_flag:read'])), 403, { detail: "API key missing required scope 'feature_flag:write'" });
    }
  });
});

describe('enrich_usage_dashboard', () => {
  test('refuses a flag without enriched analytics in PostHog’s {success: false, error} shape', async () => {
    const response = await action(flag.id, 'enrich_usage_dashboard');
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { success: false, error: 'No enriched analytics available for this feature flag' });
  });

  test('adds the enriched insights ($feature_view, $feature_interaction per variant), idempotently', async () => {
    assert.equal((await patchFlag(t, flag.id, { has_enriched_analytics: true })).statusCode, 200);
    for (let i = 0; i < 2; i++) {
      const response = await action(flag.id, 'enrich_usage_dashboard');
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { success: true });
    }
    const board = await dashboard(flag.usage_dashboard);
    assert.equal(board.tiles.length, 4);
    const views = insightNamed(board, 'Feature Viewed Total Volume');
    assert.deepEqual(lastTwoDays(views.result), {
      'Events - test': { yesterday: 0, today: 2, count: 2 },
      'Events - control': { yesterday: 1, today: 0, count: 1 },
      'Unique users - test': { yesterday: 0, today: 1, count: 1 },
      'Unique users - control': { yesterday: 1, today: 0, count: 1 },
    });
    const interactions = insightNamed(board, 'Feature Interaction Total Volume');
    assert.deepEqual(lastTwoDays(interactions.result), {
      'Events - test': { yesterday: 0, today: 1, count: 1 },
      'Unique users - test': { yesterday: 0, today: 1, count: 1 },
    });
    // `dashboard` keeps them too once the flag has enriched analytics.
    assert.equal((await action(flag.id, 'dashboard')).statusCode, 200);
    assert.equal((await dashboard(flag.usage_dashboard)).tiles.length, 4);
  });

  test('creates the usage dashboard when it is missing', async () => {
    const bare = await createFlag(t, { key: 'enrich-bare', has_enriched_analytics: true, _should_create_usage_dashboard: false });
    assert.equal((await action(bare.id, 'enrich_usage_dashboard')).statusCode, 200);
    const linked = (await getFlag(t, bare.id)).json();
    assert.equal((await dashboard(linked.usage_dashboard)).tiles.length, 4);
  });
});

describe('dashboards API', () => {
  test('lists live dashboards of the project, paginated; needs dashboard:read', async () => {
    const response = await t.request({ method: 'GET', url: `${dashboardsUrl()}?limit=2` });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.ok(body.count >= 3);
    assert.equal(body.results.length, 2);
    assert.deepEqual(Object.keys(body.results[0]).sort(), ['created_at', 'created_by', 'deleted', 'description', 'id', 'name']);
    assert.match(body.next, /offset=2/);
    const reader = await keyWith(t, ['dashboard:read']);
    assert.equal((await t.request({ method: 'GET', url: dashboardsUrl(), key: reader })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: `${dashboardsUrl()}${flag.usage_dashboard}/`, key: reader })).statusCode, 200);
    const flagsReader = await keyWith(t, ['feature_flag:write']);
    assertError(await t.request({ method: 'GET', url: dashboardsUrl(), key: flagsReader }), 403, { detail: "API key missing required scope 'dashboard:read'" });
    assertError(await t.request({ method: 'GET', url: dashboardsUrl(), key: null }), 401, {});
    assert.equal((await t.request({ method: 'POST', url: dashboardsUrl(), payload: {} })).statusCode, 405);
  });

  test('unknown dashboards and dashboards of another project are 404', async () => {
    const foreign = (await t.request({ method: 'POST', url: flagsUrl(otherProjectId), payload: { key: 'foreign-dash' } })).json();
    for (const id of ['999999', 'abc', String(foreign.usage_dashboard)]) {
      assertError(await t.request({ method: 'GET', url: `${dashboardsUrl()}${id}/` }), 404, { code: 'not_found' });
    }
    const theirs = await t.request({ method: 'GET', url: `${dashboardsUrl(otherProjectId)}${foreign.usage_dashboard}/` });
    assert.equal(theirs.statusCode, 200, theirs.body);
  });

  test('the flag-usage query reads the partial expression index on $feature_flag_called', async () => {
    const client = await t.db.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plans: string[] = [];
      const explaining = {
        query: async (sql: string, params: unknown[]) => {
          const { rows } = await client.query(`EXPLAIN ${sql}`, params);
          plans.push(rows.map((row: Json) => row['QUERY PLAN']).join('\n'));
          return { rows: [] };
        },
      } as unknown as Parameters<typeof trendRows>[0];
      await trendRows(explaining, {
        projectId: t.projectId,
        event: '$feature_flag_called',
        math: 'total',
        properties: [{ key: '$feature_flag', values: ['usage-flag'] }],
        breakdown: '$feature_flag_response',
        from: new Date(Date.now() - 30 * DAY_MS),
        to: new Date(),
      });
      assert.match(plans[0], /events_flag_called_idx/);
    } finally {
      await client.query('RESET enable_seqscan');
      client.release();
    }
  });
});
