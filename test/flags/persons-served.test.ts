import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { keyWith, otherProject } from '../helpers/api.ts';
import { createFlag, flagsUrl } from './flag-client.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

async function called(projectId: number, key: string, distinctId: string, hoursAgo: number, personId: string | null = null, event = '$feature_flag_called'): Promise<void> {
  await t.db.pool.query(
    `INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
     VALUES ($1, gen_random_uuid(), $2, $3, $4, $5, now() - make_interval(hours => $6))`,
    [projectId, event, distinctId, personId, JSON.stringify({ $feature_flag: key, $feature_flag_response: true }), hoursAgo],
  );
}

const served = (id: unknown, key?: string, projectId = t.projectId) => t.request({ method: 'GET', url: `${flagsUrl(projectId)}${id}/persons_served/`, key });

test('counts distinct persons that called the flag in the last 24 hours, nothing older, no other flag or event', async () => {
  const flag = await createFlag(t, { key: 'served-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  const person = '0193c5a0-0000-7000-8000-000000000001';
  await called(t.projectId, 'served-flag', 'a', 1, person);
  await called(t.projectId, 'served-flag', 'a-alias', 2, person); // the same person under another id
  await called(t.projectId, 'served-flag', 'b', 3);
  await called(t.projectId, 'served-flag', 'b', 4);
  await called(t.projectId, 'served-flag', 'c', 23);
  await called(t.projectId, 'served-flag', 'old', 25);
  await called(t.projectId, 'other-flag', 'd', 1);
  await called(t.projectId, 'served-flag', 'e', 1, null, '$pageview');
  const response = await served(flag.id);
  assert.equal(response.statusCode, 200, response.body);
  assert.deepEqual(response.json(), { persons: 3, hours: 24 });
});

test('a flag nobody called serves 0', async () => {
  const flag = await createFlag(t, { key: 'quiet-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  const response = await served(flag.id);
  assert.deepEqual(response.json(), { persons: 0, hours: 24 });
});

test("another project's events and flags are not seen; unknown ids are 404; read scope is enough", async () => {
  const flag = await createFlag(t, { key: 'scoped-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  const other = await otherProject(t);
  await called(other, 'scoped-flag', 'x', 1);
  const readKey = await keyWith(t, ['feature_flag:read']);
  const response = await served(flag.id, readKey);
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(response.json().persons, 0);
  assert.equal((await served(flag.id, undefined, other)).statusCode, 404);
  assert.equal((await served(999999)).statusCode, 404);
  assert.equal((await served('abc')).statusCode, 404);
  const noScope = await keyWith(t, ['survey:read']);
  assert.equal((await served(flag.id, noScope)).statusCode, 403);
  assert.equal((await t.request({ method: 'POST', url: `${flagsUrl()}${flag.id}/persons_served/` })).statusCode, 405);
});
