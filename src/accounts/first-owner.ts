import type { Pool, ReadHandle } from '../db/pool.ts';
import { UnitsOfWork, type WriteTx } from '../db/unit-of-work.ts';
import { notifyChanges } from '../kernel/changes/bus.ts';
import { ApiError } from '../kernel/errors.ts';
import { checkPasswordStrength } from './auth/password-rules.ts';
import { hashPassword, verifyPassword } from './auth/passwords.ts';
import { BOOTSTRAP_EMAIL, BOOTSTRAP_LOCK_ID, bootstrapOwner } from './bootstrap.ts';
import { ensureOwnerMembership, firstOwnerOf } from './organizations/store.ts';
import { createSignInToken } from './sessions/sign-in-links.ts';
import { deleteSessionsOfUser } from './sessions/store.ts';
import { cleanEmail } from './users/email.ts';
import { findUser, setPasswordHash } from './users/store.ts';

export interface InitAdmin {
  /** INIT_ADMIN_EMAIL; null: the first start's owner (admin@bellwether.local). */
  email: string | null;
  /** INIT_ADMIN_PASSWORD; never logged. */
  password: string | null;
}

export interface FirstOwner {
  /** A one-time sign-in token for the owner while nobody has a password; null otherwise. */
  signInToken: string | null;
  /** The e-mail of the person the token signs in (printed beside the link); null without a token. */
  signInEmail: string | null;
  /** Why INIT_ADMIN_* were ignored (to be logged as a warning), or null. */
  warning: string | null;
}

async function anyoneHasPassword(client: ReadHandle): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM users WHERE password_hash IS NOT NULL LIMIT 1');
  return (rowCount ?? 0) > 0;
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
 * INIT_ADMIN_PASSWORD for the owner: the hash changes only when the password does (restarts are
 * idempotent); when it changes, every session of theirs ends, here and (by change notice, once
 * this commits) in every serving process.
 */
async function applyPassword(client: WriteTx, userId: number, password: string, newHash: string): Promise<void> {
  const user = await findUser(client, userId);
  if (await verifyPassword(password, user?.password_hash ?? null)) return;
  await setPasswordHash(client, userId, newHash);
  if ((await deleteSessionsOfUser(client, userId)) > 0) await notifyChanges(client, [{ kind: 'auth' }], 'start-up');
}

/**
 * The console's first way in, on every start:
 * - with INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD, the bootstrap owner (remembered by user id, see
 *   bootstrap.ts) is an owner of project 1's organization and has that password; when
 *   INIT_ADMIN_EMAIL names someone else, both are ignored and `warning` says why;
 * - while nobody has a password, a one-time sign-in link for the owner is handed back to be printed.
 */
export async function ensureFirstOwner(pool: Pool, admin: InitAdmin): Promise<FirstOwner> {
  const email = admin.email?.trim() || BOOTSTRAP_EMAIL;
  checkInitAdmin(admin, email);
  const newHash = admin.password === null ? null : await hashPassword(admin.password);
  return new UnitsOfWork(pool).run(async ({ client }) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK_ID]);
    const owner = await bootstrapOwner(client, admin.email === null ? null : email);
    let userId = owner.userId;
    if (admin.email === null && admin.password === null) {
      // Without INIT_ADMIN_*, the link goes to an owner of project 1's organization as it is now.
      userId = (await firstOwnerOf(client, owner.organizationId)) ?? owner.userId;
    } else if (owner.ignoredInitAdmin === null) {
      await ensureOwnerMembership(client, owner.organizationId, owner.userId);
      if (admin.password !== null && newHash !== null) await applyPassword(client, owner.userId, admin.password, newHash);
    }
    if (await anyoneHasPassword(client)) return { signInToken: null, signInEmail: null, warning: owner.ignoredInitAdmin };
    const signInToken = await createSignInToken(client, userId);
    const { rows } = await client.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
    return { signInToken, signInEmail: rows[0]?.email ?? null, warning: owner.ignoredInitAdmin };
  });
}
