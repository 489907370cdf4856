/**
 * Forgotten passwords: a single-use link valid one hour, mailed on request (the same answer
 * whether the address has an account or not, throttled like sign-in) or made by an admin for a
 * member to hand over. Using it sets the password, ends every session of the person and signs
 * this browser in.
 */
import { randomBytes } from 'node:crypto';
import type { WriteTx } from '../../db/unit-of-work.ts';
import { notFound, validationError } from '../../kernel/errors.ts';
import type { AccountsDeps } from '../deps.ts';
import { hashSecret } from '../auth/keys.ts';
import { checkPasswordStrength } from '../auth/password-rules.ts';
import { hashPassword } from '../auth/passwords.ts';
import type { Principal } from '../auth/principal.ts';
import { checkResetLink } from '../members/rules.ts';
import { findMemberByUserId, findMemberByUserUuid } from '../members/store.ts';
import { passwordsRefused } from '../oidc/settings.ts';
import { isUuid, resolveOrganization } from '../organizations/service.ts';
import { ensurePasswordsAllowed } from '../sessions/login.ts';
import { endSessionsOfUser, startSession, type StartedSession } from '../sessions/service.ts';
import { clearAccountFailures, recordFailure } from '../sessions/store.ts';
import { accountOfUnknown, accountOfUser, ensureNotThrottled } from '../sessions/throttle.ts';
import { cleanEmail } from '../users/email.ts';
import { findUser, setPasswordHash } from '../users/store.ts';
import { consumeResetToken, findResetUser, insertResetToken, peekResetToken } from './store.ts';
import { resetMail } from './mail.ts';

export const RESET_LINK_TTL_MS = 3_600_000;

/** The console page that sets the new password; the token in the fragment never reaches a server's log. */
export function resetLink(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/reset#token=${token}`;
}

async function createResetToken(db: WriteTx, userId: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertResetToken(db, { hash: hashSecret(token), userId, ttlMs: RESET_LINK_TTL_MS });
  return token;
}

/** Requests count against the sign-in throttle's address, and against an account of their own ("reset:"), so that asking cannot lock a password out. */
const resetAccount = (account: string) => `reset:${account}`;

/**
 * `POST /api/reset/`: mails a link when the address has an account that may use a password. The
 * answer and the work done before it are the same either way; the mail goes after the commit,
 * without the request waiting for the SMTP server.
 */
export async function requestPasswordReset(deps: AccountsDeps, rawEmail: string, address: string, baseUrl: string): Promise<void> {
  const mailer = deps.mailer;
  if (!mailer) {
    throw validationError('This server sends no e-mail: ask an admin of your organization for a password reset link.', null, 'email_not_configured');
  }
  const email = cleanEmail(rawEmail, 'email');
  const { user, folded } = await findResetUser(deps.pool, email);
  const key = { account: resetAccount(user ? accountOfUser(user.id) : accountOfUnknown(folded)), address };
  await ensureNotThrottled(deps.pool, key, deps.accounts.throttle);
  await deps.units.run(async (unit) => {
    await recordFailure(unit.client, key, deps.accounts.throttle.windowMs);
    if (!user || passwordsRefused(deps.accounts.sso, user.email)) return;
    const token = await createResetToken(unit.client, user.id);
    const message = resetMail(user.email, resetLink(baseUrl, token), baseUrl);
    unit.afterCommit(() => mailer.deliver(message, 'password reset'));
  });
}

/** `POST /api/reset/complete/`: the new password (the rules checked before the token is used), every session ended, this browser signed in. */
export async function completePasswordReset(deps: AccountsDeps, token: string, password: string): Promise<StartedSession> {
  const invalid = () => validationError('This password reset link is invalid, used or expired. Ask for a new one.', 'token', 'invalid_token');
  const hash = hashSecret(token);
  const userId = await peekResetToken(deps.pool, hash);
  const user = userId === null ? null : await findUser(deps.pool, userId);
  if (!user) throw invalid();
  ensurePasswordsAllowed(deps.accounts.sso, user.email, 'token');
  checkPasswordStrength(password, [user.email, user.first_name, user.last_name]);
  const passwordHash = await hashPassword(password);
  return deps.units.run(async (unit) => {
    if ((await consumeResetToken(unit.client, hash)) !== user.id) throw invalid();
    await setPasswordHash(unit.client, user.id, passwordHash);
    await endSessionsOfUser(unit, deps.bus, user.id);
    await clearAccountFailures(unit.client, accountOfUser(user.id));
    return startSession(unit.client, deps.authenticator, user.id);
  });
}

/** A reset link for a member, made by an admin or owner to hand over (no e-mail needed). */
export async function makeResetLink(
  deps: AccountsDeps,
  principal: Principal,
  rawOrganization: string,
  userUuid: string,
  baseUrl: string,
): Promise<{ url: string; expires_at: string }> {
  const { id: organizationId } = await resolveOrganization(deps, principal, rawOrganization);
  if (!isUuid(userUuid)) throw notFound();
  return deps.units.run(async ({ client }) => {
    const actor = await findMemberByUserId(client, organizationId, principal.user.id);
    const target = await findMemberByUserUuid(client, organizationId, userUuid.toLowerCase());
    if (!actor || !target) throw notFound();
    checkResetLink(actor.level, target.level);
    ensurePasswordsAllowed(deps.accounts.sso, target.user.email);
    const token = await createResetToken(client, target.user_id);
    return { url: resetLink(baseUrl, token), expires_at: new Date(Date.now() + RESET_LINK_TTL_MS).toISOString() };
  });
}
