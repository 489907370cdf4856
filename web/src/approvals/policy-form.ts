/** The approval policy form (Settings → Approvals) and its mapping to and from a policy. Pure. */
import { ACTION_LABELS } from './describe.ts';

export const ACTION_KEYS = Object.keys(ACTION_LABELS);
export const ADMIN_LEVEL = 8;
export const OWNER_LEVEL = 15;

export type ConditionKind = 'any' | 'above' | 'amount';

export interface PolicyForm {
  actionKey: string;
  quorum: number;
  /** User ids; none: any project member may approve. */
  approvers: number[];
  allowSelfApprove: boolean;
  bypassLevels: number[];
  expiresDays: number;
  enabled: boolean;
  /** Rollout changes only: which of them need approval. */
  condition: ConditionKind;
  conditionValue: number;
}

export interface PolicyLike {
  action_key: string;
  conditions: Record<string, unknown>;
  approver_config: { users: number[]; roles: string[]; quorum: number };
  allow_self_approve: boolean;
  bypass_org_membership_levels: number[];
  expires_after: string;
  enabled: boolean;
}

/** DRF's duration text ("14 00:00:00", "12:00:00") in whole days, at least 1. */
export function durationDays(text: string): number {
  const match = /^(?:(\d+) )?(\d+):(\d+):(\d+)/.exec(text.trim());
  if (!match) return 14;
  const days = Number(match[1] ?? 0) + Number(match[2]) / 24;
  return Math.max(1, Math.round(days));
}

export function newPolicyForm(taken: string[] = []): PolicyForm {
  return {
    actionKey: ACTION_KEYS.find((key) => !taken.includes(key)) ?? ACTION_KEYS[0],
    quorum: 1,
    approvers: [],
    allowSelfApprove: false,
    bypassLevels: [],
    expiresDays: 14,
    enabled: true,
    condition: 'any',
    conditionValue: 50,
  };
}

export function policyToForm(policy: PolicyLike): PolicyForm {
  const type = policy.conditions.type;
  const value = policy.conditions.value;
  return {
    actionKey: policy.action_key,
    quorum: policy.approver_config.quorum,
    approvers: [...policy.approver_config.users],
    allowSelfApprove: policy.allow_self_approve,
    bypassLevels: [...policy.bypass_org_membership_levels],
    expiresDays: durationDays(policy.expires_after),
    enabled: policy.enabled,
    condition: type === 'before_after' ? 'above' : type === 'change_amount' ? 'amount' : 'any',
    conditionValue: typeof value === 'number' ? value : 50,
  };
}

export function policyBody(form: PolicyForm): Record<string, unknown> {
  const conditions =
    form.actionKey !== 'feature_flag.update' || form.condition === 'any'
      ? {}
      : { type: form.condition === 'above' ? 'before_after' : 'change_amount', field: 'rollout_percentage', operator: '>', value: form.conditionValue };
  return {
    action_key: form.actionKey,
    conditions,
    approver_config: { users: form.approvers, roles: [], quorum: form.quorum },
    allow_self_approve: form.allowSelfApprove,
    bypass_org_membership_levels: form.bypassLevels,
    expires_after: `${form.expiresDays} 00:00:00`,
    enabled: form.enabled,
  };
}

/** "Rollouts raised above 50%" and the like: which changes of the action the policy holds. */
export function conditionText(policy: Pick<PolicyLike, 'action_key' | 'conditions'>): string {
  if (policy.action_key !== 'feature_flag.update') return 'Every time';
  const { type, value } = policy.conditions;
  if (type === 'before_after') return `When a rollout is set above ${String(value)}%`;
  if (type === 'change_amount') return `When a rollout grows by more than ${String(value)} points`;
  return 'Any rollout change';
}
