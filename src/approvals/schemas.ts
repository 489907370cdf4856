import { Type } from 'typebox';
import { UserSummary } from '../accounts/users/user-summary.ts';
import { paginatedOf } from '../kernel/http/pagination.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Free = Type.Record(Type.String(), Type.Unknown());

export const PolicyResponse = Type.Object({
  id: Type.String({ format: 'uuid' }),
  action_key: Type.String({ description: 'feature_flag.enable, feature_flag.disable or feature_flag.update' }),
  conditions: Free,
  approver_config: Type.Object({ users: Type.Array(Type.Integer()), roles: Type.Array(Type.String()), quorum: Type.Integer() }),
  allow_self_approve: Type.Boolean(),
  bypass_org_membership_levels: Type.Array(Type.Integer()),
  bypass_roles: Type.Array(Type.String()),
  expires_after: Type.String({ description: 'DRF duration, e.g. "14 00:00:00"' }),
  enabled: Type.Boolean(),
  created_by: Nullable(UserSummary),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export const PolicyListResponse = paginatedOf(PolicyResponse);

const Vote = Type.Object({
  id: Type.String(),
  created_by: UserSummary,
  decision: Type.String({ description: 'approved or rejected' }),
  reason: Type.String(),
  created_at: Type.String(),
});

export const ChangeRequestResponse = Type.Object({
  id: Type.String({ format: 'uuid' }),
  action_key: Type.String(),
  action_version: Type.Integer(),
  resource_type: Type.String(),
  resource_id: Nullable(Type.String()),
  intent: Free,
  intent_display: Free,
  policy_snapshot: Free,
  validation_status: Type.String(),
  validation_errors: Type.Unknown(),
  validated_at: Nullable(Type.String()),
  state: Type.String({ description: 'pending, approved, applied, rejected, expired or failed' }),
  created_by: Nullable(UserSummary),
  applied_by: Nullable(UserSummary),
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.String(),
  applied_at: Nullable(Type.String()),
  apply_error: Type.String(),
  result_data: Type.Unknown(),
  approvals: Type.Array(Vote),
  can_approve: Type.Boolean(),
  can_cancel: Type.Boolean(),
  is_requester: Type.Boolean(),
  user_decision: Nullable(Type.String()),
});
export const ChangeRequestListResponse = paginatedOf(ChangeRequestResponse);

export const DecisionResponse = Type.Object({
  status: Type.String({ description: 'approved, applied, failed, rejected or canceled' }),
  message: Type.String(),
  change_request: ChangeRequestResponse,
  result: Type.Optional(Type.Object({ resource_id: Type.String(), resource_version: Type.Integer() })),
});
