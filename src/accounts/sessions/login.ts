import type { Pool } from '../../db/pool.ts';
import type { UnitsOfWork } from '../../db/unit-of-work.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { hashSecret } from '../auth/keys.ts';
import { verifyPassword } from '../auth/passwords.ts';
import { invalidCredentials, validationError } from '../../kernel/errors.ts';
import { passwordsRefused, type OidcSettings } from '../oidc/settings.ts';
import { startSession, type StartedSession } from './service.ts';
import { clearAccountFailures, consumeSignInToken, findLoginUser, recordFailure } from './store.ts';
import { accountOfUnknown, accountOfUser, ensureNotThrottled, type ThrottleRule } from './throttle.ts';

export interface LoginDeps {
  pool: Pool;
  units: UnitsOfWork;
  authenticator: Authenticator;
  throttle: ThrottleRule;
  sso: OidcSettings | null;
}

/** With OIDC_ENFORCED, an address of the single sign-on's domains: decided by its domain alone, so it tells nothing of accounts. */
export function ensurePasswordsAllowed(sso: OidcSettings | null, email: string, attr: string | null = null): void {
  if (passwordsRefused(sso, email.trim())) {
    throw validationError('This address signs in with single sign-on: use the sign-in button of your organization instead of a password.', attr, 'sso_required');
  }
}

/**
 * E-mail and password. Throttled per account (the user PostgreSQL matched, else the address as it
 * folded it) and per address before any hashing; a wrong e-mail and a wrong password get the same
 * answer after the same work (a password is always verified, against a dummy hash when there is no
 * account or it has no password).
 */
export async function signInWithPassword(
  deps: LoginDeps,
  credentials: { email: string; password: string },
  address: string,
): Promise<StartedSession> {
  ensurePasswordsAllowed(deps.sso, credentials.email);
  const { user, folded } = await findLoginUser(deps.pool, credentials.email.trim());
  const key = { account: user ? accountOfUser(user.id) : accountOfUnknown(folded), address };
  await ensureNotThrottled(deps.pool, key, deps.throttle);
  const matches = await verifyPassword(credentials.password, user?.password_hash ?? null);
  if (!user || !matches) {
    await deps.units.run(({ client }) => recordFailure(client, key, deps.throttle.windowMs));
    throw invalidCredentials();
  }
  return deps.units.run(async ({ client }) => {
    await clearAccountFailures(client, key.account);
    return startSession(client, deps.authenticator, user.id);
  });
}

/** A one-time sign-in link's token: used up whether or not it was still valid. */
export async function signInWithToken(deps: LoginDeps, token: string): Promise<StartedSession> {
  const session = await deps.units.run(async ({ client }) => {
    const userId = await consumeSignInToken(client, hashSecret(token));
    return userId === null ? null : startSession(client, deps.authenticator, userId);
  });
  if (session === null) throw validationError('This sign-in link is invalid, used or expired. Ask for a new one.', 'token', 'invalid_token');
  return session;
}
