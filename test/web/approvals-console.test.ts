// The console's reading of change requests and approval policies (web/src/approvals): who may
// approve, reject or cancel (the API's rules, with its words), the diff's fields, a decided
// request's reason, the gate's 409s told apart from failures, and the policy form's body.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiRequestError } from '../../web/src/api/errors.ts';
import { changedFields, outcomeReason, requestTitle } from '../../web/src/approvals/describe.ts';
import { gateOutcome } from '../../web/src/approvals/gate-answer.ts';
import { conditionText, durationDays, newPolicyForm, policyBody, policyToForm } from '../../web/src/approvals/policy-form.ts';
import { cancelRefusal, reviewRefusal, type ReviewedRequest } from '../../web/src/approvals/review-rights.ts';

const request = (changes: Partial<ReviewedRequest> = {}): ReviewedRequest => ({
  state: 'pending',
  is_requester: false,
  user_decision: null,
  policy_snapshot: { quorum: 1, users: [], roles: [], allow_self_approve: false },
  approvals: [],
  validation_status: 'valid',
  ...changes,
});

test('approving and rejecting: not one’s own (unless the policy allows), only approvers named, one vote, only while pending', () => {
  assert.equal(reviewRefusal(request(), 5), null, 'no approvers named: any member');
  assert.equal(reviewRefusal(request({ is_requester: true }), 5), 'You cannot approve your own change request: another member must review it.');
  assert.equal(reviewRefusal(request({ is_requester: true, policy_snapshot: { users: [], roles: [], allow_self_approve: true } }), 5), null);
  assert.equal(reviewRefusal(request({ policy_snapshot: { users: [9], roles: [] } }), 5), 'You are not in the approver set for this change request.');
  assert.equal(reviewRefusal(request({ policy_snapshot: { users: [9, 5], roles: [] } }), 5), null);
  assert.equal(reviewRefusal(request({ user_decision: 'approved' }), 5), 'You have already voted on this change request.');
  assert.equal(reviewRefusal(request({ state: 'approved' }), 5), 'Only pending change requests can be approved or rejected.');
});

test('canceling: the requester’s own, pending, nobody approved yet unless the flag changed since', () => {
  assert.equal(cancelRefusal(request({ is_requester: true })), null);
  assert.equal(cancelRefusal(request()), 'Only the member who asked for this change can cancel it.');
  assert.equal(cancelRefusal(request({ is_requester: true, state: 'rejected' })), 'Only pending change requests can be canceled.');
  const approved = [{ decision: 'approved' }];
  assert.equal(cancelRefusal(request({ is_requester: true, approvals: approved })), 'You cannot cancel this change request: it has been approved by someone already.');
  assert.equal(cancelRefusal(request({ is_requester: true, approvals: approved, validation_status: 'stale' })), null);
});

test('a request in words: its title, the fields it changes, why it ended', () => {
  const described = {
    action_key: 'feature_flag.disable',
    resource_id: '3',
    state: 'rejected',
    intent: { flag_key: 'k' },
    intent_display: { description: 'Disable feature flag "k"', before: { active: true, filters: { groups: [] } }, after: { active: false, filters: { groups: [] } } },
    approvals: [{ decision: 'rejected', reason: 'Not today' }],
    apply_error: '',
  };
  assert.equal(requestTitle(described), 'Disable feature flag "k"');
  assert.equal(requestTitle({ ...described, intent_display: {} }), 'Turn a flag off');
  assert.deepEqual(changedFields(described), [{ field: 'active', before: true, after: false }], 'unchanged filters are left out');
  assert.equal(outcomeReason(described), 'Not today');
  assert.equal(outcomeReason({ ...described, state: 'failed', apply_error: 'Precondition failed: Flag version mismatch: expected 3, got 4' }), 'Precondition failed: Flag version mismatch: expected 3, got 4');
  assert.equal(outcomeReason({ ...described, state: 'applied' }), null);
});

test("the gate's 409s are an outcome, not a failure; a version conflict stays a failure", () => {
  const sent = new ApiRequestError(409, { code: 'approval_required', detail: 'A change request has been created and is pending approval.' });
  assert.deepEqual(gateOutcome(sent), { kind: 'sent', message: 'Sent for review: A change request has been created and is pending approval.' });
  assert.equal(gateOutcome(new ApiRequestError(409, { code: 'change_request_pending', detail: 'x' }))?.kind, 'already-waiting');
  assert.equal(gateOutcome(new ApiRequestError(409, { code: 'conflict', detail: 'The flag was changed by someone else.' })), null);
  assert.equal(gateOutcome(new ApiRequestError(400, { code: 'approval_required' })), null);
  assert.equal(gateOutcome(new Error('boom')), null);
});

test('the policy form writes and reads the API’s policy', () => {
  const form = { ...newPolicyForm(['feature_flag.enable']), quorum: 2, approvers: [4, 9], bypassLevels: [8], expiresDays: 3 };
  assert.equal(form.actionKey, 'feature_flag.disable', 'the first action without a policy');
  assert.deepEqual(policyBody(form), {
    action_key: 'feature_flag.disable',
    conditions: {},
    approver_config: { users: [4, 9], roles: [], quorum: 2 },
    allow_self_approve: false,
    bypass_org_membership_levels: [8],
    expires_after: '3 00:00:00',
    enabled: true,
  });
  const update = policyBody({ ...form, actionKey: 'feature_flag.update', condition: 'amount', conditionValue: 10 });
  assert.deepEqual(update.conditions, { type: 'change_amount', field: 'rollout_percentage', operator: '>', value: 10 });
  const policy = { ...(update as { action_key: string }), conditions: update.conditions as Record<string, unknown>, approver_config: { users: [4, 9], roles: [], quorum: 2 }, allow_self_approve: false, bypass_org_membership_levels: [8], expires_after: '3 00:00:00', enabled: true };
  const back = policyToForm(policy);
  assert.equal(back.condition, 'amount');
  assert.equal(back.conditionValue, 10);
  assert.equal(back.expiresDays, 3);
  assert.equal(conditionText(policy), 'When a rollout grows by more than 10 points');
  assert.equal(durationDays('14 00:00:00'), 14);
  assert.equal(durationDays('12:00:00'), 1, 'less than a day shows as one');
  assert.equal(durationDays('2 12:00:00'), 3);
});
