import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createFlag, flagsUrl, patchFlag, type Json } from './flag-client.ts';

let t: TestApp;
let flagId: unknown;
before(async () => {
  t = await startTestApp();
  const flag = await createFlag(t, { key: 'tracked' });
  flagId = flag.id;
  await patchFlag(t, flagId, { name: 'one' });
  await patchFlag(t, flagId, { name: 'two' });
  await createFlag(t, { key: 'other' });
});
after(async () => {
  await t.close();
});

test('per-flag activity: newest first, PostHog entry shape, total_count', async () => {
  const response = await t.request({ method: 'GET', url: `${flagsUrl()}${flagId}/activity/` });
  assert.equal(response.statusCode, 200);
  const body = response.json();
  assert.equal(body.total_count, 3);
  const [latest, , first] = body.results as Json[];
  assert.equal(latest.activity, 'updated');
  assert.equal(first.activity, 'created');
  assert.equal(latest.scope, 'FeatureFlag');
  assert.equal(latest.item_id, String(flagId));
  assert.equal((latest.user as Json).email, 'admin@bellwether.local');
  const detail = latest.detail as Json;
  assert.equal(detail.name, 'tracked');
  assert.ok(Array.isArray(detail.changes));
  assert.match(String(latest.created_at), /Z$/);
  assert.equal(typeof latest.id, 'string');
});

test('project-wide activity covers every flag; pages by page and limit', async () => {
  const all = await t.request({ method: 'GET', url: `${flagsUrl()}activity/` });
  assert.equal(all.json().total_count, 4);
  const page1 = (await t.request({ method: 'GET', url: `${flagsUrl()}activity/?limit=3` })).json();
  assert.equal(page1.results.length, 3);
  assert.equal(page1.previous, null);
  const next = new URL(page1.next);
  assert.equal(next.searchParams.get('page'), '2');
  const page2 = (await t.request({ method: 'GET', url: `${next.pathname}${next.search}` })).json();
  assert.equal(page2.results.length, 1);
  assert.equal(page2.next, null);
  assert.ok(page2.previous);
});

test('activity of an unknown flag is 404; bad page is 400', async () => {
  assert.equal((await t.request({ method: 'GET', url: `${flagsUrl()}999999/activity/` })).statusCode, 404);
  const bad = await t.request({ method: 'GET', url: `${flagsUrl()}activity/?page=0` });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().attr, 'page');
});
