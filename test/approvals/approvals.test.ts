import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertValidation } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { currentOrganizationId, otherUser } from '../accounts/support.ts';
import { newFlag, readFlag, type Json } from '../scheduled-changes/client.ts';

let t: TestApp;
let reviewer: { userId: number; key: string };
let member: { userId: number; key: string };
const policies = () => `/api/projects/${t.projectId}/approval_policies/`;
const requests = () => `/api/projects/${t.projectId}/change_requests/`;
const flagUrl = (id: unknown) => `/api/projects/${t.projectId}/feature_flags/${id}/`;

before(async () => {
  t = await startTestApp();
  const organizationId = await currentOrganizationId(t);
  reviewer = await otherUser(t, organizationId, 'member');
  member = await otherUser(t, organizationId, 'member');
});
after(async () => {
  await t.close();
});

async function policy(body: Json): Promise<Json> {
  const response = await t.request({ method: 'POST', url: policies(), payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

const act = (id: unknown, action: string, key: string, reason?: string) =>
  t.request({ method: 'POST', url: `${requests()}${id}/${action}/`, payload: reason === undefined ? {} : { reason }, key });

test('policies: fields, checks, one per action, writes for organization admins only', async () => {
  const created = await policy({ action_key: 'feature_flag.disable', approver_config: { users: [reviewer.userId], quorum: 1 } });
  assert.equal(created.expires_after, '14 00:00:00');
  assert.equal(created.enabled, true);
  assert.equal(created.allow_self_approve, false);
  assertValidation(await t.request({ method: 'POST', url: policies(), payload: { action_key: 'feature_flag.disable', approver_config: { quorum: 1 } } }), 'A policy for this action already exists. You can edit the existing policy instead.', null);
  assertValidation(await t.request({ method: 'POST', url: policies(), payload: { action_key: 'feature_flag.enable', approver_config: { quorum: 0 } } }), 'Quorum must be at least 1', 'approver_config');
  assertValidation(await t.request({ method: 'POST', url: policies(), payload: { action_key: 'nope', approver_config: { quorum: 1 } } }), '"nope" is not a valid choice.', 'action_key', 'invalid_choice');
  assertValidation(
    await t.request({ method: 'POST', url: policies(), payload: { action_key: 'feature_flag.enable', approver_config: { quorum: 1 }, bypass_org_membership_levels: ['x'] } }),
    'All membership levels must be integers',
    'bypass_org_membership_levels',
  );
  const denied = await t.request({ method: 'POST', url: policies(), payload: { action_key: 'feature_flag.enable', approver_config: { quorum: 1 } }, key: member.key });
  assert.equal(denied.statusCode, 403);
  assert.equal((await t.request({ method: 'GET', url: policies(), key: member.key })).json().count, 1);
});

test('a gated disable: 409 with a change request, nothing changed; a second try is pending; no self-approval; the approver applies it as the requester', async () => {
  const flag = await newFlag(t);
  const held = await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { active: false } });
  assert.equal(held.statusCode, 409, held.body);
  const body = held.json();
  assert.equal(body.code, 'approval_required');
  assert.equal(body.status, 'approval_required');
  assert.equal(body.message, 'A change request has been created and is pending approval.');
  assert.equal(body.detail, body.message);
  assert.equal(body.resource_type, 'feature_flag');
  assert.equal(body.resource_id, String(flag.id));
  assert.deepEqual(body.required_approvers, { users: [reviewer.userId], roles: [], quorum: 1 });
  const request = body.change_request as Json;
  assert.equal(request.state, 'pending');
  assert.equal(request.action_key, 'feature_flag.disable');
  assert.equal(request.is_requester, true);
  assert.equal(request.can_approve, false);
  assert.equal(request.can_cancel, true);
  assert.equal(((request.intent as Json).preconditions as Json).version, flag.version);
  assert.equal((await readFlag(t, flag.id)).active, true, 'nothing changes until approved');

  const again = await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { active: false } });
  assert.equal(again.statusCode, 409);
  assert.equal(again.json().code, 'change_request_pending');
  assert.equal(again.json().change_request_id, body.change_request_id);

  const self = await act(body.change_request_id, 'approve', t.key);
  assert.equal(self.statusCode, 403);
  assert.equal(self.json().detail, 'You cannot approve your own change request');
  const outsider = await act(body.change_request_id, 'approve', member.key);
  assert.equal(outsider.statusCode, 403);
  assert.equal(outsider.json().detail, 'You are not in the approver set for this change request');

  const approved = await act(body.change_request_id, 'approve', reviewer.key, 'fine');
  assert.equal(approved.statusCode, 200, approved.body);
  assert.equal(approved.json().status, 'applied');
  assert.equal(approved.json().message, 'Quorum reached. Change applied successfully.');
  assert.deepEqual(approved.json().result, { resource_id: String(flag.id), resource_version: (flag.version as number) + 1 });
  const applied = approved.json().change_request as Json;
  assert.equal(applied.state, 'applied');
  assert.equal((applied.applied_by as Json).email, 'admin@bellwether.local');
  assert.equal(applied.user_decision, 'approved');
  const after = await readFlag(t, flag.id);
  assert.equal(after.active, false);
  assert.equal((after.last_modified_by as Json).email, 'admin@bellwether.local');

  const again2 = await act(body.change_request_id, 'approve', reviewer.key);
  assert.equal(again2.statusCode, 403);
  assert.equal(again2.json().detail, 'Only pending change requests can be approved');
});

test('edits no policy covers pass at once', async () => {
  const flag = await newFlag(t);
  const renamed = await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { name: 'renamed' } });
  assert.equal(renamed.statusCode, 200);
  const rollout = await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { filters: { groups: [{ properties: [], rollout_percentage: 40 }] } } });
  assert.equal(rollout.statusCode, 200, 'no policy for feature_flag.update');
});

test('a flag changed since the request: the approval fails clearly and never overwrites', async () => {
  await policy({ action_key: 'feature_flag.enable', approver_config: { users: [], quorum: 1 } });
  const flag = await newFlag(t, { active: false });
  const held = await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { active: true } });
  assert.equal(held.statusCode, 409, held.body);
  const edited = await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { name: 'edited meanwhile' } });
  assert.equal(edited.statusCode, 200);
  const approved = await act(held.json().change_request_id, 'approve', member.key);
  assert.equal(approved.statusCode, 200, approved.body);
  assert.equal(approved.json().status, 'failed');
  const expected = `Precondition failed: Flag version mismatch: expected ${flag.version}, got ${edited.json().version}`;
  assert.equal(approved.json().message, `Quorum reached but application failed: ${expected}`);
  assert.equal((approved.json().change_request as Json).apply_error, expected);
  assert.equal((approved.json().change_request as Json).state, 'failed');
  const after = await readFlag(t, flag.id);
  assert.equal(after.active, false);
  assert.equal(after.name, 'edited meanwhile');
});

test('reject needs a reason; cancel is the requester’s while nobody approved', async () => {
  const flag = await newFlag(t, { active: false });
  const held = (await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { active: true } })).json();
  const noReason = await act(held.change_request_id, 'reject', member.key);
  assert.equal(noReason.statusCode, 400);
  assert.deepEqual(noReason.json(), { error: 'A reason is required for rejection.' });
  const rejected = await act(held.change_request_id, 'reject', member.key, 'not now');
  assert.equal(rejected.json().status, 'rejected');
  assert.equal(rejected.json().message, 'Change request rejected.');
  assert.equal((rejected.json().change_request as Json).state, 'rejected');

  const second = (await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { active: true } })).json();
  assert.equal(second.code, 'approval_required', 'a settled request does not block a new one');
  const notMine = await act(second.change_request_id, 'cancel', member.key);
  assert.equal(notMine.statusCode, 403);
  assert.equal(notMine.json().detail, 'You cannot cancel this change request');
  const canceled = await act(second.change_request_id, 'cancel', t.key);
  assert.equal(canceled.json().status, 'canceled');
  assert.equal((canceled.json().change_request as Json).state, 'rejected');
  assert.equal(((canceled.json().change_request as Json).approvals as Json[])[0].reason, 'Canceled by requester');
  const list = (await t.request({ method: 'GET', url: `${requests()}?state=rejected&resource_id=${flag.id}` })).json();
  assert.equal(list.count, 2);
});

test('quorum of two; bypass by membership level', async () => {
  await t.request({ method: 'POST', url: policies(), payload: { action_key: 'feature_flag.update', approver_config: { users: [], quorum: 2 }, bypass_org_membership_levels: [15] } });
  const flag = await newFlag(t);
  const owner = await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { filters: { groups: [{ properties: [], rollout_percentage: 20 }] } } });
  assert.equal(owner.statusCode, 200, 'owners (15) bypass');
  const held = await t.request({ method: 'PATCH', url: flagUrl(flag.id), payload: { filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }, key: member.key });
  assert.equal(held.statusCode, 409);
  const first = await act(held.json().change_request_id, 'approve', reviewer.key);
  assert.equal(first.json().status, 'approved');
  assert.equal(first.json().message, 'Approval recorded. 1/2 approvals received.');
  const voteAgain = await act(held.json().change_request_id, 'approve', reviewer.key);
  assert.equal(voteAgain.statusCode, 400);
  assert.deepEqual(voteAgain.json(), { error: 'You have already voted on this change request.' });
  const second = await act(held.json().change_request_id, 'approve', t.key);
  assert.equal(second.json().status, 'applied');
  assert.equal((((await readFlag(t, flag.id)).filters as Json).groups as Json[])[0].rollout_percentage, 50);
});

test('API keys need approvals scopes; unknown ids are 404', async () => {
  const response = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'flags only', scopes: ['feature_flag:write'] } });
  const key = response.json().value;
  assert.equal((await t.request({ method: 'GET', url: requests(), key })).statusCode, 403);
  assert.equal((await t.request({ method: 'GET', url: `${requests()}00000000-0000-0000-0000-000000000000/` })).statusCode, 404);
  assert.equal((await t.request({ method: 'GET', url: `${requests()}not-a-uuid/` })).statusCode, 404);
});
