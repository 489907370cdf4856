// What the console's event-definition pages read beyond PostHog's list and metrics: the `verified`
// list filter, events per day (Bellwether's `volume`), and the definitions' activity.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createDefinition, definitionsUrl, insertDefinitionRow, keyWith, NOT_FOUND, secondProject, type Json } from './definitions-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t?.close());

const url = (id: string) => `${definitionsUrl(t.projectId)}${id}/`;
async function insertEvent(projectId: number, event: string, timestamp: string): Promise<void> {
  await t.db.pool.query(`INSERT INTO events (project_id, uuid, event, distinct_id, timestamp) VALUES ($1, gen_random_uuid(), $2, 'someone', $3)`, [projectId, event, timestamp]);
}
const dayStart = (daysAgo: number) => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - daysAgo * 86_400_000;
};

test('verified=true lists verified definitions only, false the others, anything else both', async () => {
  const verified = await createDefinition(t, { name: 'checked_out' });
  assert.equal((await t.request({ method: 'PATCH', url: url(verified), payload: { verified: true } })).statusCode, 200);
  await createDefinition(t, { name: 'browsed' });
  const names = async (query: string) => ((await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}?${query}` })).json() as Json).results.map((d: Json) => d.name).sort();
  assert.deepEqual(await names('verified=true&search=ed'), ['checked_out']);
  assert.deepEqual(await names('verified=false&search=ed'), ['browsed']);
  assert.deepEqual(await names('verified=maybe&search=ed'), ['browsed', 'checked_out']);
});

test('volume: events of the name per UTC day, oldest first, days without events as 0, this project only', async () => {
  const id = await insertDefinitionRow(t, { name: 'clicked', last_seen_at: null });
  await insertEvent(t.projectId, 'clicked', new Date(dayStart(0) + 1000).toISOString());
  await insertEvent(t.projectId, 'clicked', new Date(dayStart(0) + 2000).toISOString());
  await insertEvent(t.projectId, 'clicked', new Date(dayStart(2) + 86_399_000).toISOString());
  await insertEvent(t.projectId, 'clicked', new Date(dayStart(31)).toISOString());
  await insertEvent(t.projectId, 'clicked_not', new Date(dayStart(1)).toISOString());
  await insertEvent(await secondProject(t), 'clicked', new Date(dayStart(1)).toISOString());
  const response = await t.request({ method: 'GET', url: `${url(id)}volume/` });
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json();
  assert.equal(body.days.length, 31);
  assert.equal(body.days[30], new Date(dayStart(0)).toISOString().slice(0, 10));
  assert.deepEqual(body.counts.slice(-3), [1, 0, 2]);
  assert.equal(body.total, 3, 'the event 31 days ago is outside the window');
  const week = (await t.request({ method: 'GET', url: `${url(id)}volume/?days=7` })).json();
  assert.equal(week.days.length, 8);
  assert.equal((await t.request({ method: 'GET', url: `${url(id)}volume/?days=0` })).statusCode, 400);
  assert.equal((await t.request({ method: 'GET', url: `${url(id)}volume/?days=366` })).statusCode, 400);
  const missing = await t.request({ method: 'GET', url: `${url('00000000-0000-0000-0000-000000000000')}volume/` });
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(missing.json(), NOT_FOUND);
  assert.equal((await t.request({ method: 'GET', url: `${url('nope')}volume/` })).statusCode, 404);
  const flagsOnly = await keyWith(t, ['feature_flag:read']);
  assert.equal((await t.request({ method: 'GET', url: `${url(id)}volume/`, key: flagsOnly })).statusCode, 403);
});

test('activity: created and changed entries, per definition and for the project, naming the person; other ids 404', async () => {
  const id = await createDefinition(t, { name: 'signed_up' });
  assert.equal((await t.request({ method: 'PATCH', url: url(id), payload: { description: 'A new account' } })).statusCode, 200);
  const one = await t.request({ method: 'GET', url: `${url(id)}activity/` });
  assert.equal(one.statusCode, 200, one.body);
  const entries = one.json().results as Json[];
  assert.deepEqual(entries.map((entry) => entry.activity), ['changed', 'created']);
  assert.ok(entries.every((entry) => entry.item_id === id && entry.user !== null));
  const all = (await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}activity/` })).json();
  assert.ok(all.results.some((entry: Json) => entry.item_id === id));
  assert.equal((await t.request({ method: 'GET', url: `${url('00000000-0000-0000-0000-000000000000')}activity/` })).statusCode, 404);
  const other = await secondProject(t);
  assert.equal((await t.request({ method: 'GET', url: `${definitionsUrl(other)}${id}/activity/` })).statusCode, 404);
  const noActivityScope = await keyWith(t, ['event_definition:read']);
  assert.equal((await t.request({ method: 'GET', url: `${url(id)}activity/`, key: noActivityScope })).statusCode, 403);
});
