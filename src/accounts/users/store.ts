import { randomBytes } from 'node:crypto';
import type { ReadHandle } from '../../db/pool.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { UserRow } from './user-summary.ts';

export interface NewUser {
  email: string;
  firstName: string;
  lastName?: string;
  currentOrganizationId: string | null;
  currentProjectId: number | null;
}

export async function insertUser(db: WriteTx, user: NewUser): Promise<{ id: number }> {
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO users (distinct_id, email, first_name, last_name, is_email_verified, current_organization_id, current_project_id)
     VALUES ($1, $2, $3, $4, false, $5, $6) RETURNING id`,
    [randomBytes(16).toString('base64url'), user.email, user.firstName, user.lastName ?? '', user.currentOrganizationId, user.currentProjectId],
  );
  return rows[0];
}

/** Whatever the case: two accounts may not differ by case alone. */
export async function findUserIdByEmail(db: ReadHandle, email: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM users WHERE lower(email) = lower($1)', [email]);
  return rows[0]?.id ?? null;
}

export interface UserRecord extends UserRow {
  current_organization_id: string | null;
  current_project_id: number | null;
  created_at: Date;
  password_hash: string | null;
}

export async function findUser(db: ReadHandle, id: number): Promise<UserRecord | null> {
  const { rows } = await db.query<UserRecord>(
    `SELECT id, uuid, distinct_id, first_name, last_name, email, is_email_verified, hedgehog_config,
            role_at_organization, current_organization_id::text AS current_organization_id, current_project_id, created_at,
            password_hash
       FROM users WHERE id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/**
 * Gives a user without a current project this one, when it is in their current organization
 * (or they have none). A user who has one keeps it: `@current` does not move because something
 * new was created.
 */
export async function setCurrentProjectIfUnset(
  db: WriteTx,
  userId: number,
  project: { id: number; organizationId: string },
): Promise<void> {
  await db.query(
    `UPDATE users SET current_project_id = $2, current_organization_id = $3
      WHERE id = $1 AND current_project_id IS NULL
        AND (current_organization_id IS NULL OR current_organization_id = $3)`,
    [userId, project.id, project.organizationId],
  );
}

export async function setPasswordHash(db: WriteTx, userId: number, hash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, hash]);
}

export interface ProfileChanges {
  firstName?: string;
  lastName?: string;
  email?: string;
  passwordHash?: string;
}

/** Only the fields given change; an e-mail another account has (in any case) is false, not a change. */
export async function updateProfile(db: WriteTx, userId: number, changes: ProfileChanges): Promise<boolean> {
  try {
    await db.query(
      `UPDATE users SET first_name = COALESCE($2, first_name), last_name = COALESCE($3, last_name),
              email = COALESCE($4, email), password_hash = COALESCE($5, password_hash)
        WHERE id = $1`,
      [userId, changes.firstName ?? null, changes.lastName ?? null, changes.email ?? null, changes.passwordHash ?? null],
    );
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/** After joining an organization: it, and its first project, become the person's current ones. */
export async function setCurrentOrganization(db: WriteTx, userId: number, organizationId: string, projectId: number | null): Promise<void> {
  await db.query('UPDATE users SET current_organization_id = $2, current_project_id = $3 WHERE id = $1', [userId, organizationId, projectId]);
}
