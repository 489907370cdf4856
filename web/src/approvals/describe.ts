/** A change request in words: what it changes, its state, the fields its diff shows. Pure. */
export interface DescribedRequest {
  action_key: string;
  resource_id: string | null;
  state: string;
  intent: Record<string, unknown>;
  intent_display: Record<string, unknown>;
  approvals: Array<{ decision: string; reason: string }>;
  apply_error: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const ACTION_LABELS: Record<string, string> = {
  'feature_flag.enable': 'Turn a flag on',
  'feature_flag.disable': 'Turn a flag off',
  'feature_flag.update': "Change a flag's rollout",
};

export const STATE_LABELS: Record<string, string> = {
  pending: 'Awaiting review',
  approved: 'Approved, applies at its scheduled time',
  applied: 'Applied',
  rejected: 'Rejected',
  expired: 'Expired',
  failed: 'Failed',
};

export function requestTitle(request: DescribedRequest): string {
  const description = request.intent_display.description;
  return typeof description === 'string' && description !== '' ? description : (ACTION_LABELS[request.action_key] ?? request.action_key);
}

export function flagKeyOf(request: DescribedRequest): string | null {
  const key = request.intent.flag_key;
  return typeof key === 'string' ? key : null;
}

/** The fields whose value the request changes, with before and after. */
export function changedFields(request: DescribedRequest): Array<{ field: string; before: unknown; after: unknown }> {
  const before = isObject(request.intent_display.before) ? request.intent_display.before : {};
  const after = isObject(request.intent_display.after) ? request.intent_display.after : {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field])).map((field) => ({ field, before: before[field], after: after[field] }));
}

/** Why a decided request ended as it did: the rejection's reason, the application's error. */
export function outcomeReason(request: DescribedRequest): string | null {
  if (request.state === 'failed') return request.apply_error || null;
  if (request.state === 'rejected') return request.approvals.find((vote) => vote.decision === 'rejected')?.reason || null;
  return null;
}
