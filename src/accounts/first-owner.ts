import type { Pool, PoolClient } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { checkPasswordStrength } from './auth/password-rules.ts';
import { hashPassword, verifyPassword } from './auth/passwords.ts';
import { BOOTSTRAP_EMAIL, BOOTSTRAP_LOCK_ID, ensureOwnerAndProject } from './bootstrap.ts';
import { ApiError } from '../kernel/errors.ts';
import { createSignInToken } from './sessions/sign-in-links.ts';
import { cleanEmail } from './users/email.ts';
import { ensureOwnerMembership, firstOwnerOf } from './organizations/store.ts';
import { findProject } from './projects/store.ts';
import { findUser, setPasswordHash } from './users/store.ts';

export interface InitAdmin {
  /** INIT_ADMIN_EMAIL; null: the first start's owner (admin@bellwether.local). */
  email: string | null;
  /** INIT_ADMIN_PASSWORD; never logged. */
  password: string | null;
}

async function anyoneHasPassword(client: PoolClient): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM users WHERE password_hash IS NOT NULL LIMIT 1');
  return (rowCount ?? 0) > 0;
}

/** INIT_ADMIN_EMAIL's person (or the first start's owner): there, and an owner of project 1's organization. */
async function initAdmin(client: PoolClient, email: string): Promise<number> {
  const { userId, organizationId } = await ensureOwnerAndProject(client, email);
  await ensureOwnerMembership(client, organizationId, userId);
  return userId;
}

/** Without INIT_ADMIN_*: the first owner of project 1's organization, made on an empty database. */
async function someOwner(client: PoolClient): Promise<number> {
  const project = await findProject(client, 1);
  const owner = project ? await firstOwnerOf(client, project.organization_id) : null;
  return owner ?? (await ensureOwnerAndProject(client)).userId;
}

/** An operator's mistake in INIT_ADMIN_* stops the start with the rule it broke. */
function checkInitAdmin(admin: InitAdmin, email: string): void {
  try {
    if (admin.email !== null) cleanEmail(admin.email, 'INIT_ADMIN_EMAIL');
    if (admin.password !== null) checkPasswordStrength(admin.password, [email]);
  } catch (error) {
    if (error instanceof ApiError) {
      throw new Error(`${admin.password !== null && error.attr === 'password' ? 'INIT_ADMIN_PASSWORD' : 'INIT_ADMIN_EMAIL'}: ${error.message}`);
    }
    throw error;
  }
}

/**
 * The console's first way in, on every start:
 * - with INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD, that person is an owner of project 1's
 *   organization and has that password (idempotent: the hash changes only when the password did);
 * - while nobody has a password, a one-time sign-in link for the owner is handed back to be printed.
 * Returns the link's token, or null.
 */
export async function ensureFirstOwner(pool: Pool, admin: InitAdmin): Promise<string | null> {
  const email = admin.email?.trim() || BOOTSTRAP_EMAIL;
  checkInitAdmin(admin, email);
  const newHash = admin.password === null ? null : await hashPassword(admin.password);
  return withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_ID]);
    const userId = admin.email === null && admin.password === null ? await someOwner(client) : await initAdmin(client, email);
    if (admin.password !== null && newHash !== null) {
      const user = await findUser(client, userId);
      if (!(await verifyPassword(admin.password, user?.password_hash ?? null))) await setPasswordHash(client, userId, newHash);
    }
    if (await anyoneHasPassword(client)) return null;
    return createSignInToken(client, userId);
  });
}
