import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/pool.ts';

export interface NewUser {
  email: string;
  firstName: string;
  lastName?: string;
  currentOrganizationId: string | null;
  currentProjectId: number | null;
}

export async function insertUser(db: Queryable, user: NewUser): Promise<{ id: number }> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO users (distinct_id, email, first_name, last_name, is_email_verified, current_organization_id, current_project_id)
     VALUES ($1, $2, $3, $4, false, $5, $6) RETURNING id`,
    [randomBytes(16).toString('base64url'), user.email, user.firstName, user.lastName ?? '', user.currentOrganizationId, user.currentProjectId],
  );
  return rows[0];
}

export async function findUserIdByEmail(db: Queryable, email: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM users WHERE email = $1', [email]);
  return rows[0]?.id ?? null;
}
