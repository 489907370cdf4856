import type { Queryable } from '../../db/pool.ts';

export interface OrganizationRow {
  id: string;
  name: string;
  slug: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertOrganization(db: Queryable, name: string): Promise<OrganizationRow> {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || null;
  const { rows } = await db.query<OrganizationRow>(
    'INSERT INTO organizations (name, slug) VALUES ($1, $2) RETURNING *',
    [name, slug],
  );
  return rows[0];
}

export async function addMembership(db: Queryable, organizationId: string, userId: number, level: 'member' | 'admin' | 'owner'): Promise<void> {
  await db.query(
    `INSERT INTO organization_memberships (organization_id, user_id, level) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, user_id) DO NOTHING`,
    [organizationId, userId, level],
  );
}

export async function findOrganization(db: Queryable, id: string): Promise<OrganizationRow | null> {
  const { rows } = await db.query<OrganizationRow>('SELECT * FROM organizations WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function listOrganizationsOfUser(
  db: Queryable,
  userId: number,
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: (OrganizationRow & { membership_level: string })[] }> {
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM organization_memberships WHERE user_id = $1', [userId]);
  const { rows } = await db.query<OrganizationRow & { membership_level: string }>(
    `SELECT o.*, m.level AS membership_level FROM organizations o
       JOIN organization_memberships m ON m.organization_id = o.id AND m.user_id = $1
      ORDER BY o.created_at, o.id LIMIT $2 OFFSET $3`,
    [userId, page.limit, page.offset],
  );
  return { count: count.rows[0].n, rows };
}
