import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { DAY_MS } from '../../src/webhooks/delivery/worker.ts';
import { forgetFinished, recordAttempts } from '../../src/webhooks/delivery/store.ts';
import { poolWrite } from '../../src/db/unit-of-work.ts';
import type { TestApp } from '../helpers/app.ts';
import { inUnit } from '../helpers/database.ts';
import { createFlag, createWebhook, deliveries, startReceiver, startWebhookApp, webhooksUrl, type Receiver } from './support.ts';

let t: TestApp;
let receiver: Receiver;

before(async () => {
  t = await startWebhookApp();
  receiver = await startReceiver();
});
after(async () => {
  await t.close();
  await receiver.close();
});

test('a flag change reaches the endpoint signed; standardwebhooks verifies it and rejects a tampered copy', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.created', 'feature_flag.updated'] });
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/=]{32}$/);
  receiver.secret = hook.secret;
  const flag = await createFlag(t, 'new-checkout');
  const patched = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { active: false } });
  assert.equal(patched.statusCode, 200, patched.body);
  await t.app.webhookWorker.runOnce();

  assert.equal(receiver.received.length, 2);
  for (const each of receiver.received) assert.equal(each.verified, true, each.verifyError ?? '');
  const [created, updated] = receiver.received.map((each) => each.json);
  assert.equal(created.type, 'feature_flag.created');
  assert.equal(created.data.object.key, 'new-checkout');
  assert.equal(created.data.project.id, t.projectId);
  assert.ok(created.data.actor.email);
  assert.equal(updated.type, 'feature_flag.updated');
  assert.equal(updated.data.object.active, false);
  assert.deepEqual(
    updated.data.changes.find((change: { field: string }) => change.field === 'active'),
    { field: 'active', before: true, after: false },
  );
  assert.match(String(receiver.received[0].headers['webhook-id']), /^msg_/);

  // The same headers over a changed body: the specification's library refuses it.
  const original = receiver.received[1];
  const tampered = original.body.replace('"active":false', '"active":true');
  assert.notEqual(tampered, original.body);
  assert.throws(() => new Webhook(hook.secret).verify(tampered, original.headers as Record<string, string>));
  // And a wrong secret refuses the untouched body.
  assert.throws(() => new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(original.body, original.headers as Record<string, string>));

  const log = await deliveries(t, hook.id);
  assert.equal(log.length, 2);
  assert.ok(log.every((row) => row.status === 'delivered' && row.attempts === 1 && row.response_status === 200 && row.response_body === 'ok'));
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` });
  receiver.received.length = 0;
});

test('no change, no event: a refused flag write leaves nothing in the outbox', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['*'] });
  const before = await t.db.pool.query('SELECT count(*)::int AS n FROM webhook_deliveries');
  const refused = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: { key: 'bad key with spaces' } });
  assert.equal(refused.statusCode, 400);
  const afterwards = await t.db.pool.query('SELECT count(*)::int AS n FROM webhook_deliveries');
  assert.equal(afterwards.rows[0].n, before.rows[0].n);
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` });
});

test('a failing endpoint is retried on the schedule, then its rows fail; after 3 days of failures it is disabled', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.created'] });
  receiver.secret = hook.secret;
  receiver.answer = { status: 500, delayMs: 0, body: 'broken' };
  await createFlag(t, 'fails-1');
  await t.app.webhookWorker.runOnce();
  let [row] = await deliveries(t, hook.id);
  assert.equal(row.status, 'pending');
  assert.equal(row.attempts, 1);
  assert.equal(row.response_status, 500);
  assert.equal(row.response_body, 'broken');
  const wait = Date.parse(row.next_attempt_at) - Date.parse(row.last_attempt_at);
  assert.ok(wait >= 12_000 && wait <= 18_000, `first retry after 15 s ± 20 %, got ${wait} ms`);

  // Pretend the endpoint has failed since 4 days ago and the row is due: the next failure disables it.
  await t.db.pool.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '4 days' WHERE id = $1`, [hook.id]);
  await t.db.pool.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1`, [hook.id]);
  await t.app.webhookWorker.runOnce();
  const endpoint = (await t.request({ method: 'GET', url: `${webhooksUrl(t.projectId)}${hook.id}/` })).json();
  assert.equal(endpoint.enabled, false);
  assert.equal(endpoint.disabled_reason, 'failing');
  [row] = await deliveries(t, hook.id);
  assert.equal(row.attempts, 2);

  // Disabled: new changes write nothing for it; enabling it again clears the reason and the streak.
  await createFlag(t, 'fails-2');
  assert.equal((await deliveries(t, hook.id)).length, 1);
  const enabled = await t.request({ method: 'PATCH', url: `${webhooksUrl(t.projectId)}${hook.id}/`, payload: { enabled: true } });
  assert.equal(enabled.json().disabled_reason, null);
  assert.equal(enabled.json().failing_since, null);

  // The ninth failure is the last: the row is failed for good.
  await t.db.pool.query(`UPDATE webhook_deliveries SET attempts = 8, next_attempt_at = now() WHERE endpoint_id = $1`, [hook.id]);
  await t.app.webhookWorker.runOnce();
  [row] = await deliveries(t, hook.id);
  assert.equal(row.status, 'failed');
  assert.equal(row.attempts, 9);
  assert.equal(row.next_attempt_at, null);

  // Redeliver sends the same message again (same webhook-id) as a new delivery.
  receiver.answer = { status: 204, delayMs: 0, body: '' };
  const redelivered = await t.request({ method: 'POST', url: `${webhooksUrl(t.projectId)}${hook.id}/deliveries/${row.id}/redeliver/` });
  assert.equal(redelivered.statusCode, 202, redelivered.body);
  await t.app.webhookWorker.runOnce();
  const fresh = (await deliveries(t, hook.id))[0];
  assert.equal(fresh.status, 'delivered');
  assert.equal(fresh.message_id, row.message_id);
  assert.equal(receiver.received.at(-1)!.headers['webhook-id'], row.message_id);
  assert.equal(receiver.received.at(-1)!.verified, true);
  receiver.answer = { status: 200, delayMs: 0, body: 'ok' };
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` });
  receiver.received.length = 0;
});

test('after a rotation both secrets sign for 24 h: a receiver still on the old one verifies', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.created'] });
  const rotated = await t.request({ method: 'POST', url: `${webhooksUrl(t.projectId)}${hook.id}/rotate_secret/` });
  assert.equal(rotated.statusCode, 200, rotated.body);
  const fresh = rotated.json();
  assert.notEqual(fresh.secret, hook.secret);
  assert.ok(fresh.previous_secret_expires_at);
  receiver.secret = hook.secret;
  await createFlag(t, 'rotated-1');
  await t.app.webhookWorker.runOnce();
  const received = receiver.received.at(-1)!;
  assert.equal(String(received.headers['webhook-signature']).split(' ').length, 2);
  assert.equal(received.verified, true, received.verifyError ?? '');
  assert.doesNotThrow(() => new Webhook(fresh.secret).verify(received.body, received.headers as Record<string, string>));

  // Once the 24 h are over, only the new secret signs.
  await t.db.pool.query(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [hook.id]);
  await createFlag(t, 'rotated-2');
  await t.app.webhookWorker.runOnce();
  const later = receiver.received.at(-1)!;
  assert.equal(later.verified, false);
  assert.doesNotThrow(() => new Webhook(fresh.secret).verify(later.body, later.headers as Record<string, string>));
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` });
  receiver.received.length = 0;
});

test('in order per endpoint, at most the endpoint concurrency in flight', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.created'] });
  receiver.secret = hook.secret;
  receiver.answer = { status: 200, delayMs: 50, body: 'ok' };
  receiver.maxConcurrent = 0;
  // Written in one go (the worker sleeping), so that the claims find all twelve due.
  await t.app.webhookWorker.stop();
  for (let i = 0; i < 12; i++) await createFlag(t, `ordered-${i}`);
  t.app.webhookWorker.start();
  await t.app.webhookWorker.runOnce();
  assert.equal(receiver.maxConcurrent, 4, 'WEBHOOK_CONCURRENCY (4) in flight to the endpoint');
  receiver.answer = { status: 200, delayMs: 0, body: 'ok' };
  const keys = receiver.received.map((each) => each.json.data.object.key);
  assert.equal(keys.length, 12);
  // The worker starts them oldest first, 4 at a time: each group of 4 holds the next four flags.
  for (let group = 0; group < 3; group++) {
    assert.deepEqual(
      keys.slice(group * 4, group * 4 + 4).sort(),
      [0, 1, 2, 3].map((i) => `ordered-${group * 4 + i}`).sort(),
    );
  }
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` });
  receiver.received.length = 0;
});

test('delivered and failed rows go 30 days after they finished; pending ones stay', async () => {
  const hook = await createWebhook(t, { url: receiver.url, events: ['feature_flag.created'] });
  const insert = (status: string, finishedDaysAgo: number | null) =>
    t.db.pool.query(
      `INSERT INTO webhook_deliveries (endpoint_id, project_id, message_id, event_type, payload, status, finished_at)
       VALUES ($1, $2, $3, 'feature_flag.created', '{}', $4, now() - $5 * interval '1 day')`,
      [hook.id, t.projectId, `msg_${status}_${finishedDaysAgo}`, status, finishedDaysAgo],
    );
  await insert('delivered', 31);
  await insert('failed', 31);
  await insert('delivered', 29);
  await insert('pending', null);
  await t.db.pool.query(`UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour' WHERE status = 'pending'`);
  assert.equal(await inUnit(t.db.pool, (tx) => forgetFinished(tx, 30 * DAY_MS)), 2);
  const { rows } = await t.db.pool.query('SELECT message_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id', [hook.id]);
  assert.deepEqual(rows.map((row) => row.message_id), ['msg_delivered_29', 'msg_pending_null']);
  await t.request({ method: 'DELETE', url: `${webhooksUrl(t.projectId)}${hook.id}/` });
});

test('one statement records a batch: a success beside failures ends the streak; only failures for 3 days disable', async () => {
  // Nothing sends meanwhile: the attempts below are made up.
  await t.app.webhookWorker.stop();
  const mixed = await createWebhook(t, { url: receiver.url, events: ['feature_flag.created'] });
  const failing = await createWebhook(t, { url: `${receiver.url}?failing`, events: ['feature_flag.created'] });
  await createFlag(t, 'batch-1');
  await createFlag(t, 'batch-2');
  await t.db.pool.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '4 days' WHERE id = ANY($1::uuid[])`, [[mixed.id, failing.id]]);
  const { rows } = await t.db.pool.query<{ id: string; endpoint_id: string }>(
    `SELECT id, endpoint_id FROM webhook_deliveries WHERE endpoint_id = ANY($1::uuid[]) ORDER BY endpoint_id, id`,
    [[mixed.id, failing.id]],
  );
  const ofMixed = rows.filter((row) => row.endpoint_id === mixed.id);
  const ofFailing = rows.filter((row) => row.endpoint_id === failing.id);
  const failed = { status: 500, body: 'broken', durationMs: 3, error: 'HTTP 500' };
  await recordAttempts(
    poolWrite(t.db.pool),
    [
      { row: ofMixed[0], attempt: failed, retryInMs: 15_000 },
      { row: ofMixed[1], attempt: { status: 200, body: 'ok', durationMs: 2, error: null }, retryInMs: null },
      { row: ofFailing[0], attempt: failed, retryInMs: 15_000 },
      { row: ofFailing[1], attempt: failed, retryInMs: null },
    ],
    3 * DAY_MS,
  );
  const state = async (id: string) => (await t.request({ method: 'GET', url: `${webhooksUrl(t.projectId)}${id}/` })).json();
  assert.deepEqual([(await state(mixed.id)).enabled, (await state(mixed.id)).failing_since], [true, null], 'a success ends the streak');
  assert.equal((await state(failing.id)).enabled, false);
  assert.equal((await state(failing.id)).disabled_reason, 'failing');
  const recorded = await t.db.pool.query<{ id: string; status: string; finished: boolean; retry_in_s: number | null; response_status: number }>(
    `SELECT id, status, finished_at IS NOT NULL AS finished, round(extract(epoch FROM next_attempt_at - now()))::int AS retry_in_s, response_status
       FROM webhook_deliveries WHERE id = ANY($1::bigint[]) ORDER BY endpoint_id, id`,
    [rows.map((row) => row.id)],
  );
  assert.deepEqual(
    recorded.rows.map(({ status, finished, response_status }) => [status, finished, response_status]),
    rows.map((row) => (row === ofMixed[1] ? ['delivered', true, 200] : row === ofFailing[1] ? ['failed', true, 500] : ['pending', false, 500])),
  );
  for (const row of recorded.rows.filter((each) => each.status === 'pending')) assert.ok(row.retry_in_s !== null && row.retry_in_s >= 14 && row.retry_in_s <= 15, `retry in 15 s: ${row.retry_in_s}`);
});
