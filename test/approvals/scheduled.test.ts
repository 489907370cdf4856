import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { currentOrganizationId, otherUser } from '../accounts/support.ts';
import { getSchedule, newFlag, postSchedule, readFlag, schedulesUrl, type Json } from '../scheduled-changes/client.ts';

let t: TestApp;
let reviewer: { userId: number; key: string };
const requests = () => `/api/projects/${t.projectId}/change_requests/`;
const off = { operation: 'update_status', value: false };
const soon = () => new Date(Date.now() - 1000).toISOString();

before(async () => {
  t = await startTestApp();
  reviewer = await otherUser(t, await currentOrganizationId(t), 'member');
  const policy = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/approval_policies/`, payload: { action_key: 'feature_flag.disable', approver_config: { users: [reviewer.userId], quorum: 1 } } });
  assert.equal(policy.statusCode, 201, policy.body);
});
after(async () => {
  await t.close();
});

async function requestsOf(flagId: unknown): Promise<Json[]> {
  return (await t.request({ method: 'GET', url: `${requests()}?resource_id=${flagId}` })).json().results;
}

test('a covered schedule is created and bound to a pending request; another for the flag is refused; its timing is locked', async () => {
  const flag = await newFlag(t);
  const created = await postSchedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: off, scheduled_at: '2030-01-01T00:00:00Z' });
  assert.equal(created.statusCode, 201, created.body);
  const [request] = await requestsOf(flag.id);
  assert.equal(request.state, 'pending');
  assert.equal((request.intent as Json).scheduled_change_id, created.json().id);

  const second = await postSchedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: off, scheduled_at: '2030-02-01T00:00:00Z' });
  assert.equal(second.statusCode, 409);
  assert.equal(second.json().code, 'change_request_pending');
  assert.equal(second.json().message, 'A change for this feature flag is already awaiting approval or its scheduled application. Wait for it to resolve before scheduling another change.');

  const moved = await t.request({ method: 'PATCH', url: `${schedulesUrl(t)}${created.json().id}/`, payload: { scheduled_at: '2031-01-01T00:00:00Z' } });
  assert.equal(moved.statusCode, 400);
  assert.equal(moved.json().attr, 'scheduled_at');
  assert.equal(moved.json().detail, 'Cannot change the timing of a scheduled change while its approval request is pending or approved. Delete this schedule and create a new one to reschedule.');

  assert.equal((await t.request({ method: 'DELETE', url: `${schedulesUrl(t)}${created.json().id}/` })).statusCode, 204);
  assert.equal((await requestsOf(flag.id))[0].state, 'expired', 'deleting the schedule expires its request');
});

test('not approved by its time: the request expires and the change is not made', async () => {
  const flag = await newFlag(t);
  const row = (await postSchedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: off, scheduled_at: soon() })).json();
  const results = await t.app.scheduledChanges.runOnce();
  assert.equal(results.find((r) => r.id === row.id)?.outcome, 'skipped');
  const stored = await getSchedule(t, row.id);
  assert.ok(stored.executed_at);
  assert.equal(stored.failure_reason, null);
  assert.equal((await requestsOf(flag.id))[0].state, 'expired');
  assert.equal((await readFlag(t, flag.id)).active, true);
});

test('approved: the approval does not apply it; the executor does at its time, and the request is applied', async () => {
  const flag = await newFlag(t);
  const row = (await postSchedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: off, scheduled_at: new Date(Date.now() + 3600_000).toISOString() })).json();
  const [request] = await requestsOf(flag.id);
  const approved = await t.request({ method: 'POST', url: `${requests()}${request.id}/approve/`, payload: {}, key: reviewer.key });
  assert.equal(approved.statusCode, 200, approved.body);
  assert.equal(approved.json().status, 'approved');
  assert.equal(approved.json().message, 'Quorum reached. Change approved and will be applied at its scheduled time.');
  assert.equal((await readFlag(t, flag.id)).active, true);
  await t.app.scheduledChanges.runOnce(new Date(Date.now() + 3601_000));
  assert.equal((await readFlag(t, flag.id)).active, false);
  assert.ok((await getSchedule(t, row.id)).executed_at);
  const [applied] = await requestsOf(flag.id);
  assert.equal(applied.state, 'applied');
  assert.equal((applied.applied_by as Json).email, 'admin@bellwether.local');
});

test('a schedule no policy covers is not bound', async () => {
  const flag = await newFlag(t, { active: false });
  const created = await postSchedule(t, { record_id: String(flag.id), model_name: 'FeatureFlag', payload: { operation: 'update_status', value: true }, scheduled_at: soon() });
  assert.equal(created.statusCode, 201);
  assert.deepEqual(await requestsOf(flag.id), []);
});
