import type { Static } from 'typebox';
import { isoUtc } from '../kernel/time.ts';
import type { ChangeRequestResponse, PolicyResponse } from './schemas.ts';
import type { ChangeRequestRow, PolicyRow } from './store.ts';

/** Who is looking at a change request: decides can_approve, can_cancel, is_requester, user_decision. */
export interface Reader {
  userId: number;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : isoUtc(new Date(value)));
const isoOf = (value: Date | string): string => isoUtc(new Date(value));

export function inApproverSet(row: ChangeRequestRow, userId: number): boolean {
  // No users and no roles named: any member of the project may approve.
  const { users, roles } = row.policy_snapshot;
  return (users.length === 0 && roles.length === 0) || users.includes(userId);
}

export function canApprove(row: ChangeRequestRow, userId: number): boolean {
  const isRequester = row.created_by_id === userId;
  return (
    row.state === 'pending' &&
    (!isRequester || row.policy_snapshot.allow_self_approve) &&
    inApproverSet(row, userId) &&
    !row.approvals.some((v) => v.created_by_id === userId)
  );
}

export function canCancel(row: ChangeRequestRow, userId: number): boolean {
  const approved = row.approvals.some((v) => v.decision === 'approved');
  return row.created_by_id === userId && row.state === 'pending' && (!approved || row.validation_status === 'stale');
}

export function presentChangeRequest(row: ChangeRequestRow, reader: Reader): Static<typeof ChangeRequestResponse> {
  const vote = row.approvals.find((v) => v.created_by_id === reader.userId);
  return {
    id: row.id,
    action_key: row.action_key,
    action_version: row.action_version,
    resource_type: row.resource_type,
    resource_id: row.resource_id,
    intent: row.intent,
    intent_display: row.intent_display,
    policy_snapshot: { ...row.policy_snapshot },
    validation_status: row.validation_status,
    validation_errors: row.validation_errors,
    validated_at: iso(row.validated_at),
    state: row.state,
    created_by: row.created_by,
    applied_by: row.applied_by,
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
    expires_at: isoOf(row.expires_at),
    applied_at: iso(row.applied_at),
    apply_error: row.apply_error,
    result_data: row.result_data,
    approvals: row.approvals.map((v) => ({ id: v.id, created_by: v.created_by, decision: v.decision, reason: v.reason, created_at: isoOf(v.created_at) })),
    can_approve: canApprove(row, reader.userId),
    can_cancel: canCancel(row, reader.userId),
    is_requester: row.created_by_id === reader.userId,
    user_decision: vote?.decision ?? null,
  };
}

/** DRF's duration text: `"14 00:00:00"`, `"01:30:00"`. */
export function durationText(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const rest = seconds % 86_400;
  const hms = [Math.floor(rest / 3600), Math.floor((rest % 3600) / 60), rest % 60].map((n) => String(n).padStart(2, '0')).join(':');
  return days > 0 ? `${days} ${hms}` : hms;
}

export function presentPolicy(row: PolicyRow): Static<typeof PolicyResponse> {
  return {
    id: row.id,
    action_key: row.action_key,
    conditions: row.conditions,
    approver_config: row.approver_config,
    allow_self_approve: row.allow_self_approve,
    bypass_org_membership_levels: row.bypass_org_membership_levels,
    bypass_roles: row.bypass_roles,
    expires_after: durationText(row.expires_after_seconds),
    enabled: row.enabled,
    created_by: row.created_by,
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
  };
}
