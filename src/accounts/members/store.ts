import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { Membership } from '../auth/principal.ts';
import { userSummarySql, type UserSummary } from '../users/user-summary.ts';

export type Level = Membership['level'];

export interface MemberRow {
  id: string;
  user_id: number;
  user: UserSummary;
  level: Level;
  joined_at: Date;
  updated_at: Date;
  last_login: Date | null;
  has_password: boolean;
  has_sso: boolean;
}

const MEMBER_COLUMNS = `m.id, m.user_id, ${userSummarySql('u')} AS user, m.level, m.joined_at, m.updated_at, u.last_login,
  u.password_hash IS NOT NULL AS has_password, EXISTS (SELECT 1 FROM user_identities i WHERE i.user_id = u.id) AS has_sso`;

export async function listMembers(
  db: ReadHandle,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: MemberRow[] }> {
  const count = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM organization_memberships WHERE organization_id = $1',
    [organizationId],
  );
  const { rows } = await db.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM organization_memberships m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = $1
      ORDER BY m.joined_at, u.id LIMIT $2 OFFSET $3`,
    [organizationId, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}

/** The organization's member whose user has `column` = `value`. */
async function findMember(db: ReadHandle, organizationId: string, column: 'u.uuid' | 'm.user_id', value: string | number): Promise<MemberRow | null> {
  const { rows } = await db.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM organization_memberships m JOIN users u ON u.id = m.user_id
      WHERE m.organization_id = $1 AND ${column} = $2`,
    [organizationId, value],
  );
  return rows[0] ?? null;
}

/** The member with this user uuid (read under lockOrganization when it decides a change). */
export function findMemberByUserUuid(db: ReadHandle, organizationId: string, userUuid: string): Promise<MemberRow | null> {
  return findMember(db, organizationId, 'u.uuid', userUuid);
}

export function findMemberByUserId(db: ReadHandle, organizationId: string, userId: number): Promise<MemberRow | null> {
  return findMember(db, organizationId, 'm.user_id', userId);
}

/**
 * Serialises every change to one organization's memberships (levels, removals, joins), so that two
 * concurrent changes cannot together leave it without an owner. Waits at most the lock timeout.
 */
export async function lockOrganization(db: WriteTx, organizationId: string): Promise<boolean> {
  await db.query("SET LOCAL lock_timeout = '5s'");
  const { rowCount } = await db.query('SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE', [organizationId]);
  return (rowCount ?? 0) > 0;
}

export async function countOwners(db: ReadHandle, organizationId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM organization_memberships WHERE organization_id = $1 AND level = 'owner'",
    [organizationId],
  );
  return rows[0].n;
}

export async function updateMemberLevel(db: WriteTx, membershipId: string, level: Level): Promise<void> {
  await db.query('UPDATE organization_memberships SET level = $2, updated_at = now() WHERE id = $1', [membershipId, level]);
}

export async function deleteMembership(db: WriteTx, membershipId: string): Promise<void> {
  await db.query('DELETE FROM organization_memberships WHERE id = $1', [membershipId]);
}

/**
 * A person who left an organization no longer has it (or one of its projects) as their current
 * one: they move to another organization of theirs, if any, and its first project.
 */
export async function moveCurrentOutOf(db: WriteTx, userId: number, organizationId: string): Promise<void> {
  await db.query(
    `WITH next AS (
       SELECT m.organization_id,
              (SELECT p.id FROM projects p WHERE p.organization_id = m.organization_id ORDER BY p.id LIMIT 1) AS project_id
         FROM organization_memberships m WHERE m.user_id = $1 ORDER BY m.joined_at LIMIT 1)
     UPDATE users SET current_organization_id = (SELECT organization_id FROM next),
                      current_project_id = (SELECT project_id FROM next)
      WHERE id = $1
        AND (current_organization_id = $2
             OR current_project_id IN (SELECT id FROM projects WHERE organization_id = $2))`,
    [userId, organizationId],
  );
}
