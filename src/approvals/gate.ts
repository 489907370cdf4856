/**
 * The approval gate on API edits of flags: an edit that is a gated action (and not bypassed, and
 * matching the policy's conditions) is held: a pending change request is created in the edit's
 * transaction and the caller gets PostHog's 409. An edit no policy covers costs one indexed read
 * (none when it is not an enable, a disable or a rollout change).
 */
import type { Membership } from '../accounts/auth/principal.ts';
import type { FlagEdit, FlagEditGate } from '../flags/gate.ts';
import { conflict, RawErrorResponse } from '../kernel/errors.ts';
import { conditionsHold, detectAction, rolloutChanges, type FlagAction } from './detect.ts';
import { raiseChangeRequestEvent } from './events.ts';
import { presentChangeRequest } from './present.ts';
import type { ReadHandle } from '../db/pool.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import { enabledPolicy, findChangeRequest, insertChangeRequest, openChangeRequest, type ChangeRequestRow, type PolicyRow, type PolicySnapshot } from './store.ts';

/** PostHog's organization membership levels. */
export const MEMBERSHIP_LEVELS: Record<Membership['level'], number> = { member: 1, admin: 8, owner: 15 };

const DESCRIPTIONS: Record<FlagAction, string> = {
  'feature_flag.enable': 'Enable feature flag',
  'feature_flag.disable': 'Disable feature flag',
  'feature_flag.update': 'Change the rollout of feature flag',
};

export function pendingAnswer(existing: ChangeRequestRow, edit: FlagEdit, message = 'A pending approval request already exists for this action'): RawErrorResponse {
  return new RawErrorResponse(409, {
    code: 'change_request_pending',
    status: 'approval_required',
    detail: message,
    message,
    resource_type: 'feature_flag',
    resource_id: String(edit.before.id),
    change_request_id: existing.id,
    change_request: presentChangeRequest(existing, { userId: edit.actor.id }),
    required_approvers: {},
  });
}

function intentOf(action: FlagAction, edit: FlagEdit) {
  const { before, next, body } = edit;
  const triggered = rolloutChanges(before.filters, next.filters).map((c) => c.path);
  const gated: Record<string, unknown> = {};
  if (before.active !== next.active) gated.active = next.active;
  if (triggered.length > 0) gated.filters = next.filters;
  return {
    intent: {
      flag_id: before.id,
      flag_key: before.key,
      current_state: { active: before.active, filters: before.filters },
      gated_changes: gated,
      full_request_data: body,
      preconditions: { version: before.version, updated_at: before.updated_at.toISOString() },
      http_method: edit.httpMethod,
      ...(triggered.length > 0 ? { triggered_paths: triggered } : {}),
    },
    intentDisplay: {
      description: `${DESCRIPTIONS[action]} "${before.key}"`,
      before: { active: before.active, filters: before.filters },
      after: { active: next.active, filters: next.filters },
      ...(triggered.length > 0 ? { triggered_paths: triggered } : {}),
    },
  };
}

function bypassed(policy: PolicyRow, edit: FlagEdit): boolean {
  return edit.organizationLevel !== null && policy.bypass_org_membership_levels.includes(MEMBERSHIP_LEVELS[edit.organizationLevel]);
}

export interface Held {
  action: FlagAction;
  policy: PolicyRow;
}

/** The action and policy that hold this edit, or null when it may go through. */
export async function policyHolding(client: ReadHandle, edit: FlagEdit): Promise<Held | null> {
  const action = detectAction(edit.before, edit.next);
  if (action === null) return null;
  const policy = await enabledPolicy(client, edit.projectId, action);
  if (policy === null || bypassed(policy, edit)) return null;
  if (action === 'feature_flag.update' && !conditionsHold(policy.conditions, rolloutChanges(edit.before.filters, edit.next.filters))) return null;
  return { action, policy };
}

/** A pending request for the held edit; null when another open request for the action and flag exists. */
export async function openRequest(client: WriteTx, edit: FlagEdit, held: Held, extraIntent: Record<string, unknown> = {}): Promise<string | null> {
  const { action, policy } = held;
  const { intent, intentDisplay } = intentOf(action, edit);
  const id = await insertChangeRequest(client, {
    projectId: edit.projectId,
    actionKey: action,
    resourceType: 'feature_flag',
    resourceId: String(edit.before.id),
    intent: { ...intent, ...extraIntent },
    intentDisplay,
    policySnapshot: snapshotOf(policy),
    createdById: edit.actor.id,
    expiresAfterSeconds: policy.expires_after_seconds,
  });
  if (id !== null) await raiseChangeRequestEvent(client, 'change_request.opened', edit.projectId, id, edit.actor.id);
  return id;
}

function snapshotOf(policy: PolicyRow): PolicySnapshot {
  return {
    quorum: policy.approver_config.quorum,
    users: policy.approver_config.users ?? [],
    roles: policy.approver_config.roles ?? [],
    allow_self_approve: policy.allow_self_approve,
    conditions: policy.conditions,
    bypass_org_membership_levels: policy.bypass_org_membership_levels,
    bypass_roles: policy.bypass_roles,
  };
}

export const approvalGate: FlagEditGate = async (unit, edit) => {
  const { client } = unit;
  const held = await policyHolding(client, edit);
  if (held === null) return null;
  const resourceId = String(edit.before.id);
  const existing = await openChangeRequest(client, edit.projectId, held.action, resourceId);
  if (existing !== null) return pendingAnswer(existing, edit);
  const id = await openRequest(client, edit, held);
  if (id === null) {
    // Another edit opened one since the read above.
    const raced = await openChangeRequest(client, edit.projectId, held.action, resourceId);
    if (raced !== null) return pendingAnswer(raced, edit);
    throw conflict('A change request for this flag was settled while this edit was saved. Please try again.');
  }
  const created = (await findChangeRequest(client, edit.projectId, id))!;
  const snapshot = created.policy_snapshot;
  const approverOnly = !snapshot.allow_self_approve && snapshot.users.includes(edit.actor.id);
  const message = approverOnly ? 'A change request has been created and is pending approval from others.' : 'A change request has been created and is pending approval.';
  return new RawErrorResponse(409, {
    code: 'approval_required',
    status: 'approval_required',
    detail: message,
    message,
    resource_type: 'feature_flag',
    resource_id: resourceId,
    change_request_id: id,
    change_request: presentChangeRequest(created, { userId: edit.actor.id }),
    required_approvers: held.policy.approver_config,
  });
};
