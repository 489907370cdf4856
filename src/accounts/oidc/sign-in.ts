/**
 * Single sign-on, start to finish: a pending sign-in stored in PostgreSQL (any process may get the
 * callback), the provider's answer checked, then the person found by their identity, linked by
 * their verified e-mail, or created in the organization, and a session started exactly as a
 * password sign-in starts one. Nothing is written until every check has passed.
 */
import { randomBytes } from 'node:crypto';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { AccountsDeps } from '../deps.ts';
import { hashesEqual, hashSecret } from '../auth/keys.ts';
import { addMembership } from '../organizations/store.ts';
import { startSession, type StartedSession } from '../sessions/service.ts';
import { EMAIL_MAX_LENGTH } from '../users/email.ts';
import { findUserIdByEmail, insertUser } from '../users/store.ts';
import { authorizationUrl, codeChallengeOf, redeemCallback, SsoRefused, type ProviderAccount, type SsoProvider } from './provider.ts';
import { domainAllowed } from './settings.ts';
import { ThrottledError } from '../../kernel/errors.ts';
import { countPendingOf, findHomeOrganization, findIdentityUser, insertIdentity, insertPendingSignIn, markEmailVerified, takePendingSignIn } from './store.ts';

/** From the click on "Sign in with SSO" to the callback. */
export const PENDING_SIGN_IN_TTL_MS = 10 * 60_000;
/**
 * Sign-ins one client address may have on their way at once: each click stores a row until its
 * callback or its 10 minutes end, so this bounds what one address can make the table hold, while
 * an office behind one address signing in together stays far below it.
 */
export const PENDING_PER_ADDRESS = 100;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const UNIQUE_VIOLATION = '23505';

const random = () => randomBytes(32).toString('base64url');

/**
 * The provider's authorization URL, and the PKCE verifier for the browser's cookie: the verifier
 * is kept nowhere else (its sha256 binds the pending sign-in to that browser).
 */
export async function beginSignIn(
  deps: AccountsDeps,
  provider: SsoProvider,
  address: string,
  limit = PENDING_PER_ADDRESS,
): Promise<{ url: string; verifier: string }> {
  if ((await countPendingOf(deps.pool, address, limit)) >= limit) {
    const seconds = PENDING_SIGN_IN_TTL_MS / 1000;
    throw new ThrottledError(seconds, `Too many sign-ins started from this address. Try again in ${seconds} seconds.`);
  }
  const state = random();
  const nonce = random();
  const verifier = random();
  await deps.units.run(({ client }) =>
    insertPendingSignIn(client, { stateHash: hashSecret(state), verifierHash: hashSecret(verifier), nonce, address, ttlMs: PENDING_SIGN_IN_TTL_MS }),
  );
  return { url: authorizationUrl(provider, { state, nonce, codeChallenge: await codeChallengeOf(verifier) }), verifier };
}

export interface Callback {
  state: string | undefined;
  /** The callback's whole query string, as the provider sent it. */
  query: string;
  /** The browser's cookie from beginSignIn. */
  verifier: string | undefined;
}

export async function completeSignIn(deps: AccountsDeps, provider: SsoProvider, callback: Callback): Promise<StartedSession> {
  const { state, verifier } = callback;
  if (!state || !verifier || state.length > 200 || verifier.length > 200) throw new SsoRefused('invalid_state');
  // Used up here, whatever follows: a state works once.
  const pending = await deps.units.run(({ client }) => takePendingSignIn(client, hashSecret(state)));
  if (!pending?.live || !hashesEqual(hashSecret(verifier), pending.verifierHash)) throw new SsoRefused('invalid_state');
  const account = await redeemCallback(provider, callback.query, { state, nonce: pending.nonce, verifier });
  const email = checkedEmail(provider, account);
  return deps.units.run(
    async ({ client }) => {
      const userId = await userFor(client, provider, account, email);
      return startSession(client, deps.authenticator, userId);
    },
    // Two first sign-ins of one person at once: the second finds what the first created.
    { retry: true, retryAlso: (error) => (error as { code?: string }).code === UNIQUE_VIOLATION },
  );
}

function checkedEmail(provider: SsoProvider, account: ProviderAccount): string {
  const email = account.email?.trim() ?? '';
  if (!account.emailVerified || email === '' || email.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(email)) {
    throw new SsoRefused('email_unverified');
  }
  if (!domainAllowed(provider.settings, email)) throw new SsoRefused('domain_not_allowed');
  return email;
}

/** The identity's person; else the account with that verified e-mail, linked now; else a new member of the organization. */
async function userFor(client: WriteTx, provider: SsoProvider, account: ProviderAccount, email: string): Promise<number> {
  const known = await findIdentityUser(client, provider.issuer, account.subject);
  if (known !== null) return known;
  let userId = await findUserIdByEmail(client, email);
  if (userId === null) {
    const home = await findHomeOrganization(client);
    if (!home) throw new SsoRefused('no_organization');
    ({ id: userId } = await insertUser(client, {
      email,
      firstName: account.givenName || email.slice(0, email.indexOf('@')),
      lastName: account.familyName,
      currentOrganizationId: home.organizationId,
      currentProjectId: home.projectId,
    }));
    await addMembership(client, home.organizationId, userId, provider.settings.defaultLevel);
  }
  await insertIdentity(client, { issuer: provider.issuer, subject: account.subject, userId, email });
  await markEmailVerified(client, userId);
  return userId;
}
