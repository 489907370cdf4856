/** SQL of approval policies, change requests and their votes. */
import type { WriteHandle, WriteTx } from '../db/unit-of-work.ts';
import type { ReadHandle } from '../db/pool.ts';
import { userSummarySql, type UserSummary } from '../accounts/users/user-summary.ts';

export interface ApproverConfig {
  users: number[];
  roles: string[];
  quorum: number;
}

export interface PolicyRow {
  id: string;
  project_id: number;
  action_key: string;
  conditions: Record<string, unknown>;
  approver_config: ApproverConfig;
  allow_self_approve: boolean;
  bypass_org_membership_levels: number[];
  bypass_roles: string[];
  expires_after_seconds: number;
  enabled: boolean;
  created_by: UserSummary | null;
  created_at: Date;
  updated_at: Date;
}

export type PolicyFields = Pick<PolicyRow, 'action_key' | 'conditions' | 'approver_config' | 'allow_self_approve' | 'bypass_org_membership_levels' | 'bypass_roles' | 'expires_after_seconds' | 'enabled'>;

const SELECT_POLICY = `SELECT p.*, ${userSummarySql('u')} AS created_by FROM approval_policies p LEFT JOIN users u ON u.id = p.created_by_id`;

export async function findPolicy(db: ReadHandle, projectId: number, id: string): Promise<PolicyRow | null> {
  const { rows } = await db.query<PolicyRow>(`${SELECT_POLICY} WHERE p.project_id = $1 AND p.id = $2`, [projectId, id]);
  return rows[0] ?? null;
}

/** The enabled policy of an action (the gate's one read). */
export async function enabledPolicy(db: ReadHandle, projectId: number, actionKey: string): Promise<PolicyRow | null> {
  const { rows } = await db.query<PolicyRow>(`SELECT p.*, NULL AS created_by FROM approval_policies p WHERE p.project_id = $1 AND p.action_key = $2 AND p.enabled`, [projectId, actionKey]);
  return rows[0] ?? null;
}

export async function listPolicies(db: ReadHandle, projectId: number, filter: { action_key?: string; enabled?: boolean }, limit: number, offset: number) {
  const where = ['p.project_id = $1'];
  const params: unknown[] = [projectId];
  if (filter.action_key !== undefined) where.push(`p.action_key = $${params.push(filter.action_key)}`);
  if (filter.enabled !== undefined) where.push(`p.enabled = $${params.push(filter.enabled)}`);
  const condition = where.join(' AND ');
  const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM approval_policies p WHERE ${condition}`, params);
  const { rows } = await db.query<PolicyRow>(`${SELECT_POLICY} WHERE ${condition} ORDER BY p.created_at, p.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, limit, offset]);
  return { count: count.rows[0].n, rows };
}

const policyValues = (f: PolicyFields) => [f.action_key, JSON.stringify(f.conditions), JSON.stringify(f.approver_config), f.allow_self_approve, JSON.stringify(f.bypass_org_membership_levels), JSON.stringify(f.bypass_roles), f.expires_after_seconds, f.enabled];

/** null when the project already has a policy for the action. */
export async function insertPolicy(db: WriteTx, projectId: number, userId: number, fields: PolicyFields): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO approval_policies (action_key, conditions, approver_config, allow_self_approve, bypass_org_membership_levels, bypass_roles, expires_after_seconds, enabled, project_id, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (project_id, action_key) DO NOTHING RETURNING id`,
    [...policyValues(fields), projectId, userId],
  );
  return rows[0]?.id ?? null;
}

export async function updatePolicy(db: WriteTx, id: string, fields: PolicyFields): Promise<void> {
  await db.query(
    `UPDATE approval_policies SET action_key = $1, conditions = $2, approver_config = $3, allow_self_approve = $4, bypass_org_membership_levels = $5,
       bypass_roles = $6, expires_after_seconds = $7, enabled = $8, updated_at = now() WHERE id = $9`,
    [...policyValues(fields), id],
  );
}

export async function deletePolicy(db: WriteTx, projectId: number, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM approval_policies WHERE project_id = $1 AND id = $2', [projectId, id]);
  return (rowCount ?? 0) > 0;
}

export interface VoteRow {
  id: string;
  created_by: UserSummary;
  created_by_id: number;
  decision: 'approved' | 'rejected';
  reason: string;
  created_at: Date;
}

export interface ChangeRequestRow {
  id: string;
  project_id: number;
  action_key: string;
  action_version: number;
  resource_type: string;
  resource_id: string | null;
  intent: Record<string, unknown>;
  intent_display: Record<string, unknown>;
  policy_snapshot: PolicySnapshot;
  validation_status: string;
  validation_errors: unknown;
  validated_at: Date | null;
  state: 'pending' | 'approved' | 'applied' | 'rejected' | 'expired' | 'failed';
  created_by_id: number | null;
  created_by: UserSummary | null;
  applied_by: UserSummary | null;
  created_at: Date;
  updated_at: Date;
  expires_at: Date;
  applied_at: Date | null;
  apply_error: string;
  result_data: unknown;
  approvals: VoteRow[];
}

export interface PolicySnapshot {
  quorum: number;
  users: number[];
  roles: string[];
  allow_self_approve: boolean;
  conditions: Record<string, unknown>;
  bypass_org_membership_levels: number[];
  bypass_roles: string[];
}

const SELECT_REQUEST = `SELECT r.*, ${userSummarySql('c')} AS created_by, ${userSummarySql('a')} AS applied_by,
  COALESCE((SELECT json_agg(json_build_object('id', v.id, 'created_by', ${userSummarySql('vu')}, 'created_by_id', v.created_by_id, 'decision', v.decision,
    'reason', v.reason, 'created_at', v.created_at) ORDER BY v.created_at) FROM change_request_votes v JOIN users vu ON vu.id = v.created_by_id
    WHERE v.change_request_id = r.id), '[]') AS approvals
  FROM change_requests r LEFT JOIN users c ON c.id = r.created_by_id LEFT JOIN users a ON a.id = r.applied_by_id`;

export async function findChangeRequest(db: ReadHandle, projectId: number, id: string, forUpdate = false): Promise<ChangeRequestRow | null> {
  if (forUpdate) await db.query('SELECT 1 FROM change_requests WHERE project_id = $1 AND id = $2 FOR UPDATE', [projectId, id]);
  const { rows } = await db.query<ChangeRequestRow>(`${SELECT_REQUEST} WHERE r.project_id = $1 AND r.id = $2`, [projectId, id]);
  return rows[0] ?? null;
}

export async function openChangeRequest(db: ReadHandle, projectId: number, actionKey: string, resourceId: string): Promise<ChangeRequestRow | null> {
  const { rows } = await db.query<ChangeRequestRow>(
    `${SELECT_REQUEST} WHERE r.project_id = $1 AND r.action_key = $2 AND r.resource_id = $3 AND r.state IN ('pending', 'approved')`,
    [projectId, actionKey, resourceId],
  );
  return rows[0] ?? null;
}

export interface ChangeRequestFilter {
  state?: string[];
  action_key?: string;
  requester?: number;
  resource_type?: string;
  resource_id?: string;
}

export async function listChangeRequests(db: ReadHandle, projectId: number, filter: ChangeRequestFilter, limit: number, offset: number) {
  const where = ['r.project_id = $1'];
  const params: unknown[] = [projectId];
  if (filter.state !== undefined) where.push(`r.state = ANY($${params.push(filter.state)})`);
  if (filter.action_key !== undefined) where.push(`r.action_key = $${params.push(filter.action_key)}`);
  if (filter.requester !== undefined) where.push(`r.created_by_id = $${params.push(filter.requester)}`);
  if (filter.resource_type !== undefined) where.push(`r.resource_type = $${params.push(filter.resource_type)}`);
  if (filter.resource_id !== undefined) where.push(`r.resource_id = $${params.push(filter.resource_id)}`);
  const condition = where.join(' AND ');
  const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM change_requests r WHERE ${condition}`, params);
  const { rows } = await db.query<ChangeRequestRow>(`${SELECT_REQUEST} WHERE ${condition} ORDER BY r.created_at DESC, r.id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, limit, offset]);
  return { count: count.rows[0].n, rows };
}

export interface NewChangeRequest {
  projectId: number;
  actionKey: string;
  resourceType: string;
  resourceId: string;
  intent: Record<string, unknown>;
  intentDisplay: Record<string, unknown>;
  policySnapshot: PolicySnapshot;
  createdById: number;
  expiresAfterSeconds: number;
}

/** null when an open request for the same action and resource exists (the unique index decides). */
export async function insertChangeRequest(db: WriteTx, r: NewChangeRequest): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO change_requests (project_id, action_key, resource_type, resource_id, intent, intent_display, policy_snapshot, created_by_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9))
     ON CONFLICT (project_id, action_key, resource_id) WHERE state IN ('pending', 'approved') DO NOTHING RETURNING id`,
    [r.projectId, r.actionKey, r.resourceType, r.resourceId, JSON.stringify(r.intent), JSON.stringify(r.intentDisplay), JSON.stringify(r.policySnapshot), r.createdById, r.expiresAfterSeconds],
  );
  return rows[0]?.id ?? null;
}

export async function insertVote(db: WriteTx, requestId: string, userId: number, decision: 'approved' | 'rejected', reason: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO change_request_votes (change_request_id, created_by_id, decision, reason) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
    [requestId, userId, decision, reason],
  );
  return (rowCount ?? 0) > 0;
}

export async function setState(
  db: WriteTx,
  id: string,
  state: ChangeRequestRow['state'],
  extra: { appliedById?: number | null; applyError?: string; resultData?: unknown } = {},
): Promise<void> {
  await db.query(
    `UPDATE change_requests SET state = $2, updated_at = now(),
       applied_by_id = COALESCE($3, applied_by_id), applied_at = CASE WHEN $2 = 'applied' THEN now() ELSE applied_at END,
       apply_error = COALESCE($4, apply_error), result_data = COALESCE($5, result_data) WHERE id = $1`,
    [id, state, extra.appliedById ?? null, extra.applyError ?? null, extra.resultData === undefined ? null : JSON.stringify(extra.resultData)],
  );
}

/** Pending or approved requests past their time become expired. */
export async function expireOverdue(db: WriteHandle, projectId: number): Promise<void> {
  await db.query(`UPDATE change_requests SET state = 'expired', updated_at = now() WHERE project_id = $1 AND state IN ('pending', 'approved') AND expires_at <= now()`, [projectId]);
}

/** A pending or approved request that is no longer needed (its schedule changed or is gone). */
export async function expireRequest(db: WriteTx, id: string): Promise<void> {
  await db.query(`UPDATE change_requests SET state = 'expired', updated_at = now() WHERE id = $1 AND state IN ('pending', 'approved')`, [id]);
}

export async function requestState(db: ReadHandle, id: string): Promise<{ state: ChangeRequestRow['state']; created_by_id: number | null } | null> {
  const { rows } = await db.query<{ state: ChangeRequestRow['state']; created_by_id: number | null }>('SELECT state, created_by_id FROM change_requests WHERE id = $1 FOR UPDATE', [id]);
  return rows[0] ?? null;
}
