import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import { userSummarySql, type UserSummary } from '../users/user-summary.ts';
import type { Level } from '../members/store.ts';

/** PostHog's validity: an invite can be used for 3 days after it was made. */
export const INVITE_VALID_DAYS = 3;
const EXPIRED_SQL = `i.created_at < now() - make_interval(days => ${INVITE_VALID_DAYS})`;

export interface InviteRow {
  id: string;
  target_email: string;
  first_name: string;
  level: Level;
  created_by: UserSummary | null;
  emailing_attempt_made: boolean;
  created_at: Date;
  updated_at: Date;
  is_expired: boolean;
}

const INVITE_COLUMNS = `i.id, i.target_email, i.first_name, i.level, ${userSummarySql('u')} AS created_by,
  i.emailing_attempt_made, i.created_at, i.updated_at, ${EXPIRED_SQL} AS is_expired`;

export async function insertInvite(
  db: WriteTx,
  invite: { organizationId: string; targetEmail: string; firstName: string; level: Level; createdBy: number; emailed: boolean },
): Promise<InviteRow> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO organization_invites (organization_id, target_email, first_name, level, created_by, emailing_attempt_made)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [invite.organizationId, invite.targetEmail, invite.firstName, invite.level, invite.createdBy, invite.emailed],
  );
  return (await findInvite(db, invite.organizationId, rows[0].id))!;
}

export async function findInvite(db: ReadHandle, organizationId: string, id: string): Promise<InviteRow | null> {
  const { rows } = await db.query<InviteRow>(
    `SELECT ${INVITE_COLUMNS} FROM organization_invites i LEFT JOIN users u ON u.id = i.created_by
      WHERE i.organization_id = $1 AND i.id = $2`,
    [organizationId, id],
  );
  return rows[0] ?? null;
}

export async function listInvites(
  db: ReadHandle,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: InviteRow[] }> {
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM organization_invites WHERE organization_id = $1', [
    organizationId,
  ]);
  const { rows } = await db.query<InviteRow>(
    `SELECT ${INVITE_COLUMNS} FROM organization_invites i LEFT JOIN users u ON u.id = i.created_by
      WHERE i.organization_id = $1 ORDER BY i.created_at DESC, i.id LIMIT $2 OFFSET $3`,
    [organizationId, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}

export async function hasLiveInviteFor(db: ReadHandle, organizationId: string, email: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM organization_invites i WHERE i.organization_id = $1 AND lower(i.target_email) = lower($2) AND NOT (${EXPIRED_SQL})`,
    [organizationId, email],
  );
  return (rowCount ?? 0) > 0;
}

/** Every invite of this address to the organization (expired ones before a new invite; all of them once one is used). */
export async function deleteInvitesFor(db: WriteTx, organizationId: string, email: string): Promise<void> {
  await db.query('DELETE FROM organization_invites WHERE organization_id = $1 AND lower(target_email) = lower($2)', [
    organizationId,
    email,
  ]);
}

export async function deleteInvite(db: WriteTx, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM organization_invites WHERE organization_id = $1 AND id = $2', [organizationId, id]);
  return (rowCount ?? 0) > 0;
}

export async function isMemberByEmail(db: ReadHandle, organizationId: string, email: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM organization_memberships m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = $1 AND lower(u.email) = lower($2)`,
    [organizationId, email],
  );
  return (rowCount ?? 0) > 0;
}

/** An invite as the sign-up page needs it, whatever organization it is for. */
export interface SignupInvite {
  id: string;
  organization_id: string;
  organization_name: string;
  target_email: string;
  first_name: string;
  level: Level;
  is_expired: boolean;
}

/** `lock`: the invite row stays locked until the transaction ends (a sign-up racing another). */
export async function findSignupInvite(db: ReadHandle, id: string, lock = false): Promise<SignupInvite | null> {
  if (lock) await db.query("SET LOCAL lock_timeout = '5s'");
  const { rows } = await db.query<SignupInvite>(
    `SELECT i.id, i.organization_id, o.name AS organization_name, i.target_email, i.first_name, i.level, ${EXPIRED_SQL} AS is_expired
       FROM organization_invites i JOIN organizations o ON o.id = i.organization_id
      WHERE i.id = $1 ${lock ? 'FOR UPDATE OF i' : ''}`,
    [id],
  );
  return rows[0] ?? null;
}
