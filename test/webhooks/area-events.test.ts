/**
 * The event types of experiments, scheduled changes and change requests: listed for the picker,
 * written to the outbox in their change's transaction, delivered signed with the object as the API
 * serves it; an endpoint that did not pick a type gets none of it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { currentOrganizationId, otherUser } from '../accounts/support.ts';
import { action, createExperiment } from '../experiments/support.ts';
import { newFlag, schedule } from '../scheduled-changes/client.ts';
import { createWebhook, startReceiver, startWebhookApp, webhooksUrl, type Json, type Receiver } from './support.ts';

const AREA_EVENTS = [
  'experiment.launched',
  'experiment.ended',
  'scheduled_change.applied',
  'scheduled_change.failed',
  'change_request.opened',
  'change_request.approved',
  'change_request.rejected',
];

let t: TestApp;
let receiver: Receiver;
let onlyFlags: Receiver;
let reviewer: { userId: number; key: string };

before(async () => {
  t = await startWebhookApp();
  receiver = await startReceiver();
  onlyFlags = await startReceiver('/flags-only');
  reviewer = await otherUser(t, await currentOrganizationId(t), 'member');
  receiver.secret = (await createWebhook(t, { url: receiver.url, events: AREA_EVENTS })).secret;
  onlyFlags.secret = (await createWebhook(t, { url: onlyFlags.url, events: ['feature_flag.created'] })).secret;
});
after(async () => {
  await t.close();
  await receiver.close();
  await onlyFlags.close();
});

/** Delivers what is due and answers the messages received since the previous call. */
async function delivered(): Promise<Json[]> {
  await t.app.webhookWorker.runOnce();
  const messages = receiver.received.map((each) => {
    assert.equal(each.verified, true, each.verifyError ?? '');
    return each.json;
  });
  receiver.received.length = 0;
  return messages;
}

const past = (ms: number) => new Date(Date.now() - ms).toISOString();

test('the picker lists every area event type, and an endpoint may take them', async () => {
  const response = await t.request({ method: 'GET', url: `${webhooksUrl(t.projectId)}event_types/` });
  assert.equal(response.statusCode, 200, response.body);
  const types: string[] = response.json().results;
  for (const type of AREA_EVENTS) assert.ok(types.includes(type), type);
});

test('experiment.launched and experiment.ended carry the experiment as the API serves it', async () => {
  const experiment = await createExperiment(t);
  await delivered();
  assert.equal((await action(t, experiment.id, 'launch')).statusCode, 200);
  const [launched, ...rest] = await delivered();
  assert.equal(rest.length, 0);
  assert.equal(launched.type, 'experiment.launched');
  assert.equal(launched.data.object.id, experiment.id);
  assert.equal(launched.data.object.status, 'running');
  assert.ok(launched.data.object.start_date);
  assert.equal('user_access_level' in launched.data.object, false);
  assert.equal(launched.data.project.id, t.projectId);
  assert.ok(launched.data.actor.email);

  assert.equal((await action(t, experiment.id, 'end')).statusCode, 200);
  const [ended] = await delivered();
  assert.equal(ended.type, 'experiment.ended');
  assert.equal(ended.data.object.status, 'stopped');
  assert.ok(ended.data.object.end_date);
});

test('scheduled_change.applied and .failed are written with the run, as the schedules API shows the row', async () => {
  const flag = await newFlag(t);
  const applied = await schedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: { operation: 'update_status', value: false }, scheduled_at: past(1000) });
  const broken = await schedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: { operation: 'no_such_operation' }, scheduled_at: past(500) });
  const results = await t.app.scheduledChanges.runOnce();
  assert.deepEqual(results.map((r) => [r.id, r.outcome]).sort(), [[applied.id, 'applied'], [broken.id, 'failed']].sort());

  const messages = await delivered();
  const byType = new Map(messages.map((m) => [m.type, m]));
  assert.equal(messages.length, 2);
  const ok = byType.get('scheduled_change.applied') ?? assert.fail('no scheduled_change.applied');
  assert.equal(ok.data.object.id, applied.id);
  assert.ok(ok.data.object.executed_at, 'the object is the row after the run');
  assert.equal(ok.data.object.record_id, String(flag.id));
  assert.ok(ok.data.actor.email, 'the creator made the change');
  const failed = byType.get('scheduled_change.failed') ?? assert.fail('no scheduled_change.failed');
  assert.equal(failed.data.object.id, broken.id);
  assert.match(failed.data.object.failure_reason, /\(permanent error\)$/);
  assert.equal(onlyFlags.received.filter((each) => each.json.type.startsWith('scheduled_change.')).length, 0);
});

test('change_request.opened, .approved and .rejected follow the request through review', async () => {
  const policy = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/approval_policies/`,
    payload: { action_key: 'feature_flag.disable', approver_config: { users: [reviewer.userId], quorum: 1 } },
  });
  assert.equal(policy.statusCode, 201, policy.body);
  const flag = await newFlag(t);
  await delivered();

  const held = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { active: false } });
  assert.equal(held.statusCode, 409, held.body);
  const requestId = held.json().change_request_id;
  const [opened, ...noMore] = await delivered();
  assert.equal(noMore.length, 0);
  assert.equal(opened.type, 'change_request.opened');
  assert.equal(opened.data.object.id, requestId);
  assert.equal(opened.data.object.state, 'pending');
  assert.equal('can_approve' in opened.data.object, false);

  const approved = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/change_requests/${requestId}/approve/`, payload: {}, key: reviewer.key });
  assert.equal(approved.statusCode, 200, approved.body);
  const [approval] = await delivered();
  assert.equal(approval.type, 'change_request.approved');
  assert.equal(approval.data.object.state, 'applied');
  assert.equal(approval.data.actor.id, reviewer.userId);

  const second = await newFlag(t);
  const heldAgain = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${second.id}/`, payload: { active: false } });
  assert.equal(heldAgain.statusCode, 409, heldAgain.body);
  await delivered();
  const rejected = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/change_requests/${heldAgain.json().change_request_id}/reject/`,
    payload: { reason: 'not now' },
    key: reviewer.key,
  });
  assert.equal(rejected.statusCode, 200, rejected.body);
  const [rejection] = await delivered();
  assert.equal(rejection.type, 'change_request.rejected');
  assert.equal(rejection.data.object.state, 'rejected');
});

test('an event rolls back with its change: a refused approval leaves nothing in the outbox', async () => {
  const flag = await newFlag(t);
  await delivered();
  const held = await t.request({ method: 'PATCH', url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`, payload: { active: false } });
  assert.equal(held.statusCode, 409, held.body);
  await delivered();
  // The requester may not approve their own request: refused, no change, no event.
  const refused = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/change_requests/${held.json().change_request_id}/approve/`, payload: {} });
  assert.equal(refused.statusCode, 403, refused.body);
  assert.deepEqual(await delivered(), []);
});
