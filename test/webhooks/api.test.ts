import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { TestApp } from '../helpers/app.ts';
import { assertValidation, keyWith, otherProject } from '../helpers/api.ts';
import { createSurvey, surveysUrl } from '../surveys/support.ts';
import { createFlag, createWebhook, deliveries, startReceiver, startWebhookApp, webhooksUrl, type Receiver } from './support.ts';

let t: TestApp;
let receiver: Receiver;
const logLines: string[] = [];
const SECRET_KEY = 'a long random server secret for the tests';

before(async () => {
  const logger = pino({ level: 'trace' }, new Writable({ write: (chunk, _encoding, done) => (logLines.push(String(chunk)), done()) }));
  t = await startWebhookApp({ secretKey: SECRET_KEY, logger });
  receiver = await startReceiver();
});
after(async () => {
  await t.close();
  await receiver.close();
});

test('create answers the secret once; later reads mask it; it is stored encrypted and never logged', async () => {
  const created = await createWebhook(t, { url: receiver.url, events: ['feature_flag.updated', 'feature_flag.updated'], description: '  CI  ' });
  assert.match(created.secret, /^whsec_/);
  assert.deepEqual(created.events, ['feature_flag.updated']);
  assert.equal(created.description, 'CI');
  assert.equal(created.format, 'json');
  assert.equal(created.enabled, true);
  const read = (await t.request({ method: 'GET', url: `${webhooksUrl(t.projectId)}${created.id}/` })).json();
  assert.notEqual(read.secret, created.secret);
  assert.match(read.secret, /^whsec_.{4}….{4}$/);
  const listed = (await t.request({ method: 'GET', url: webhooksUrl(t.projectId) })).json();
  assert.equal(listed.count, 1);
  assert.equal(listed.results[0].secret, read.secret);
  const { rows } = await t.db.pool.query('SELECT secret FROM webhook_endpoints WHERE id = $1', [created.id]);
  assert.match(rows[0].secret, /^aesgcm1:/);
  assert.ok(!rows[0].secret.includes(created.secret.slice(6)));

  const rotated = (await t.request({ method: 'POST', url: `${webhooksUrl(t.projectId)}${created.id}/rotate_secret/` })).json();
  receiver.secret = rotated.secret;
  const flag = await createFlag(t, 'logged-flag');
  await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { name: 'renamed' } });
  await t.app.webhookWorker.runOnce();
  assert.equal(receiver.received.at(-1)!.verified, true);
  const logs = logLines.join('');
  assert.ok(logs.length > 0);
  for (const secret of [created.secret, rotated.secret]) {
    assert.ok(!logs.includes(secret) && !logs.includes(secret.slice(6)), 'a secret reached the logs');
  }
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${created.id}/` });
  receiver.received.length = 0;
});

test('bad bodies are clear 400s', async () => {
  const post = (payload: Record<string, unknown>) => t.request({ method: 'POST', url: webhooksUrl(t.projectId), payload });
  assertValidation(await post({ url: receiver.url, events: ['flag.exploded'] }), '"flag.exploded" is not a valid choice.', 'events', 'invalid_choice');
  assertValidation(await post({ url: receiver.url, events: [] }), 'Pick at least one event type, or "*" for every one.', 'events', 'empty');
  assert.equal((await post({ url: receiver.url, events: ['*'], format: 'xml' })).statusCode, 400);
  assert.equal((await post({ url: receiver.url })).statusCode, 400);
  assert.equal((await post({ events: ['*'] })).statusCode, 400);
  assert.equal((await post({ url: receiver.url, events: ['*'], description: 'x'.repeat(401) })).statusCode, 400);
  assert.equal((await post({ url: receiver.url, events: ['*'], secret: 'whsec_mine' })).statusCode, 400);
  const star = await post({ url: receiver.url, events: ['survey.created', '*'] });
  assert.equal(star.statusCode, 201);
  assert.deepEqual(star.json().events, ['*']);
  const types = (await t.request({ method: 'GET', url: `${webhooksUrl(t.projectId)}event_types/` })).json();
  assert.ok(types.results.includes('survey.response') && types.results.includes('cohort.updated'));
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${star.json().id}/` });
});

test("another project's ids, unknown ids and foreign deliveries are 404s", async () => {
  const mine = await createWebhook(t, { url: receiver.url, events: ['*'] });
  const other = await otherProject(t);
  const theirs = (await t.request({ method: 'POST', url: webhooksUrl(other), payload: { url: receiver.url, events: ['*'] } })).json();
  for (const url of [
    `${webhooksUrl(t.projectId)}${theirs.id}/`,
    `${webhooksUrl(other)}${mine.id}/`,
    `${webhooksUrl(t.projectId)}${randomUUID()}/`,
    `${webhooksUrl(t.projectId)}not-a-uuid/`,
    `${webhooksUrl(t.projectId)}${theirs.id}/deliveries/`,
  ]) {
    assert.equal((await t.request({ method: 'GET', url })).statusCode, 404, url);
  }
  assert.equal((await t.request({ method: 'PATCH', url: `${webhooksUrl(t.projectId)}${theirs.id}/`, payload: { enabled: false } })).statusCode, 404);
  assert.equal((await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${theirs.id}/` })).statusCode, 404);
  assert.equal((await t.request({ method: 'POST', url: `${webhooksUrl(t.projectId)}${mine.id}/deliveries/1/redeliver/` })).statusCode, 404);
  assert.equal((await t.request({ method: 'POST', url: `${webhooksUrl(t.projectId)}${mine.id}/deliveries/abc/redeliver/` })).statusCode, 404);
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${mine.id}/` });
  await t.request({ method: 'DELETE', url: `${webhooksUrl(other)}${theirs.id}/` });
});

test('scopes webhook:read / webhook:write; members below admin may read but not manage', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['*'] });
  const reader = await keyWith(t, ['webhook:read']);
  const flagsOnly = await keyWith(t, ['feature_flag:write']);
  assert.equal((await t.request({ method: 'GET', url: webhooksUrl(t.projectId), key: reader })).statusCode, 200);
  assert.equal((await t.request({ method: 'GET', url: webhooksUrl(t.projectId), key: flagsOnly })).statusCode, 403);
  assert.equal((await t.request({ method: 'POST', url: webhooksUrl(t.projectId), key: reader, payload: { url: receiver.url, events: ['*'] } })).statusCode, 403);
  assert.equal((await t.request({ method: 'POST', url: `${webhooksUrl(t.projectId)}${hook.id}/rotate_secret/`, key: reader })).statusCode, 403);

  await t.db.pool.query("UPDATE organization_memberships SET level = 'member'");
  try {
    // A key made now is looked up afresh (the authenticator keeps a principal for 5 s).
    const member = await keyWith(t, ['*']);
    assert.equal((await t.request({ method: 'GET', url: webhooksUrl(t.projectId), key: member })).statusCode, 200);
    const refused = await t.request({ method: 'POST', url: webhooksUrl(t.projectId), key: member, payload: { url: receiver.url, events: ['*'] } });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().detail, 'Your organization access level is insufficient.');
    assert.equal((await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/`, key: member })).statusCode, 403);
  } finally {
    await t.db.pool.query("UPDATE organization_memberships SET level = 'owner'");
  }
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` });
});

test('test ping, survey events (created, launched, stopped, response) and cohort updates', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['*'] });
  receiver.secret = hook.secret;
  const ping = await t.request({ method: 'POST', url: `${webhooksUrl(t.projectId)}${hook.id}/test/` });
  assert.equal(ping.statusCode, 202, ping.body);

  const survey = await createSurvey(t, { questions: [{ id: 'q1', type: 'open', question: 'Why?' }] });
  assert.equal((await t.request({ method: 'POST', url: `${surveysUrl(t.projectId)}${survey.id}/launch/` })).statusCode, 200);
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  const batch = [
    { event: 'survey sent', distinct_id: 'person-1', uuid: randomUUID(), properties: { $survey_id: survey.id, $survey_response_q1: 'Too slow' } },
    { event: 'pageview', distinct_id: 'person-1', uuid: randomUUID(), properties: {} },
  ];
  assert.equal((await t.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: rows[0].api_token, batch } })).statusCode, 200);
  assert.equal((await t.request({ method: 'POST', url: `${surveysUrl(t.projectId)}${survey.id}/stop/` })).statusCode, 200);

  const cohort = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/cohorts/`, payload: { name: 'Pros', filters: { properties: { type: 'AND', values: [] } } } });
  assert.equal(cohort.statusCode, 201, cohort.body);
  const renamed = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/cohorts/${cohort.json().id}/`, payload: { name: 'Pro users' } });
  assert.equal(renamed.statusCode, 200, renamed.body);

  await t.app.webhookWorker.runOnce();
  // (The survey's own targeting flag is a flag too: its changes are feature_flag events.)
  const types = receiver.received.map((each) => each.json.type).filter((type) => !type.startsWith('feature_flag.'));
  assert.deepEqual(types, ['webhook.ping', 'survey.created', 'survey.launched', 'survey.response', 'survey.stopped', 'cohort.updated']);
  assert.ok(receiver.received.every((each) => each.verified));
  const byType = Object.fromEntries(receiver.received.map((each) => [each.json.type, each.json]));
  assert.equal(byType['survey.created'].data.object.id, survey.id);
  assert.ok(byType['survey.launched'].data.object.start_date);
  assert.ok(byType['survey.stopped'].data.object.end_date);
  assert.deepEqual(byType['survey.response'].data.object.answers, { q1: 'Too slow' });
  assert.equal(byType['survey.response'].data.survey.id, survey.id);
  assert.equal(byType['cohort.updated'].data.object.name, 'Pro users');
  assert.deepEqual(byType['cohort.updated'].data.changes, [{ field: 'name', before: 'Pros', after: 'Pro users' }]);

  const log = await deliveries(t, hook.id);
  assert.equal(log.length, receiver.received.length);
  assert.ok(log.every((row) => row.status === 'delivered' && typeof row.duration_ms === 'number'));
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` });
  receiver.received.length = 0;
});

test('deleting a flag sends feature_flag.deleted; PATCH and DELETE of an endpoint', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.deleted'] });
  receiver.secret = hook.secret;
  const flag = await createFlag(t, 'doomed');
  await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { deleted: true } });
  await t.app.webhookWorker.runOnce();
  assert.deepEqual(receiver.received.map((each) => each.json.type), ['feature_flag.deleted']);
  assert.equal(receiver.received[0].json.data.object.deleted, true);

  const patched = await t.request({ method: 'PATCH', url: `${webhooksUrl(t.projectId)}${hook.id}/`, payload: { format: 'slack', enabled: false, events: ['*'] } });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.equal(patched.json().format, 'slack');
  assert.equal(patched.json().enabled, false);
  assertValidation(await t.request({ method: 'POST', url: `${webhooksUrl(t.projectId)}${hook.id}/test/` }), 'This webhook is disabled: enable it to send a test.', 'enabled', 'disabled');
  assertValidation(
    await t.request({ method: 'PATCH', url: `${webhooksUrl(t.projectId)}${hook.id}/`, payload: { url: 'https://169.254.169.254/' } }),
    'The host "169.254.169.254" resolves to a loopback, private, link-local or reserved address (169.254.169.254); webhooks cannot reach it.',
    'url',
    'invalid_url',
  );
  assert.equal((await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` })).statusCode, 204);
  assert.equal((await t.request({ method: 'GET', url: `${webhooksUrl(t.projectId)}${hook.id}/` })).statusCode, 404);
  const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [hook.id]);
  assert.equal(rows[0].n, 0);
  receiver.received.length = 0;
});
