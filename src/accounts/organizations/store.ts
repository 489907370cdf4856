import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { Membership } from '../auth/principal.ts';
import type { KeyReach } from './reach.ts';

export interface OrganizationRow {
  id: string;
  name: string;
  slug: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertOrganization(db: WriteTx, name: string): Promise<OrganizationRow> {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || null;
  const { rows } = await db.query<OrganizationRow>(
    'INSERT INTO organizations (name, slug) VALUES ($1, $2) RETURNING *',
    [name, slug],
  );
  return rows[0];
}

export async function addMembership(db: WriteTx, organizationId: string, userId: number, level: 'member' | 'admin' | 'owner'): Promise<void> {
  await db.query(
    `INSERT INTO organization_memberships (organization_id, user_id, level) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, user_id) DO NOTHING`,
    [organizationId, userId, level],
  );
}

/** The user is an owner of the organization: added as one, or raised to it. */
export async function ensureOwnerMembership(db: WriteTx, organizationId: string, userId: number): Promise<void> {
  await db.query(
    `INSERT INTO organization_memberships (organization_id, user_id, level) VALUES ($1, $2, 'owner')
     ON CONFLICT (organization_id, user_id) DO UPDATE SET level = 'owner', updated_at = now()
      WHERE organization_memberships.level <> 'owner'`,
    [organizationId, userId],
  );
}

export async function firstOwnerOf(db: ReadHandle, organizationId: string): Promise<number | null> {
  const { rows } = await db.query<{ user_id: number }>(
    "SELECT user_id FROM organization_memberships WHERE organization_id = $1 AND level = 'owner' ORDER BY joined_at, user_id LIMIT 1",
    [organizationId],
  );
  return rows[0]?.user_id ?? null;
}

export async function findOrganization(db: ReadHandle, id: string): Promise<OrganizationRow | null> {
  const { rows } = await db.query<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export interface OrganizationOfUser extends OrganizationRow {
  membership_level: Membership['level'];
  member_count: number;
}

const ORGANIZATION_OF_USER_COLUMNS = `o.id, o.name, o.slug, o.created_at, o.updated_at, m.level AS membership_level,
  (SELECT count(*)::int FROM organization_memberships mc WHERE mc.organization_id = o.id) AS member_count`;

/** The organizations a key reaches: the user's memberships, narrowed by the key's scoping. */
export async function listReachableOrganizations(
  db: ReadHandle,
  reach: KeyReach,
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: OrganizationOfUser[] }> {
  const where = `($2::uuid[] IS NULL OR o.id = ANY($2::uuid[]))
    AND ($3::int[] IS NULL OR EXISTS (SELECT 1 FROM projects p WHERE p.organization_id = o.id AND p.id = ANY($3::int[])))`;
  const params = [reach.userId, reach.organizations, reach.teams];
  const count = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM organizations o
       JOIN organization_memberships m ON m.organization_id = o.id AND m.user_id = $1 WHERE ${where}`,
    params,
  );
  const { rows } = await db.query<OrganizationOfUser>(
    `SELECT ${ORGANIZATION_OF_USER_COLUMNS} FROM organizations o
       JOIN organization_memberships m ON m.organization_id = o.id AND m.user_id = $1
      WHERE ${where}
      ORDER BY m.joined_at, o.created_at, o.id LIMIT $4 OFFSET $5`,
    [...params, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}

/** One organization as its member `userId` sees it; null when it is unknown or they are not a member. */
export async function findOrganizationOfUser(db: ReadHandle, id: string, userId: number): Promise<OrganizationOfUser | null> {
  const { rows } = await db.query<OrganizationOfUser>(
    `SELECT ${ORGANIZATION_OF_USER_COLUMNS} FROM organizations o
       JOIN organization_memberships m ON m.organization_id = o.id AND m.user_id = $2
      WHERE o.id = $1`,
    [id, userId],
  );
  return rows[0] ?? null;
}
