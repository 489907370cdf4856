/**
 * What the signed-in person may do with a change request, in the API's own words
 * (src/approvals: CanApprove for approve and reject, CanCancel): null when allowed, else the reason
 * the console shows beside the control it disables.
 */
export interface ReviewedRequest {
  state: string;
  is_requester: boolean;
  user_decision: string | null;
  policy_snapshot: Record<string, unknown>;
  approvals: Array<{ decision: string }>;
  validation_status: string;
}

const ids = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Approving or rejecting (the API checks both with the same rule). */
export function reviewRefusal(request: ReviewedRequest, userId: number): string | null {
  if (request.state !== 'pending') return 'Only pending change requests can be approved or rejected.';
  if (request.is_requester && request.policy_snapshot.allow_self_approve !== true) return 'You cannot approve your own change request: another member must review it.';
  const users = ids(request.policy_snapshot.users);
  const roles = ids(request.policy_snapshot.roles);
  if ((users.length > 0 || roles.length > 0) && !users.includes(userId)) return 'You are not in the approver set for this change request.';
  if (request.user_decision !== null) return 'You have already voted on this change request.';
  return null;
}

/** Canceling: the requester's own, while pending and nobody approved (or the flag changed since). */
export function cancelRefusal(request: ReviewedRequest): string | null {
  if (!request.is_requester) return 'Only the member who asked for this change can cancel it.';
  if (request.state !== 'pending') return 'Only pending change requests can be canceled.';
  const approved = request.approvals.some((vote) => vote.decision === 'approved');
  if (approved && request.validation_status !== 'stale') return 'You cannot cancel this change request: it has been approved by someone already.';
  return null;
}
