import type { AppDeps } from '../../app.ts';
import { withTransaction } from '../../db/transaction.ts';
import { checkPasswordStrength } from '../auth/password-rules.ts';
import { hashPassword } from '../auth/passwords.ts';
import { validationError } from '../errors.ts';
import { lockOrganization } from '../members/store.ts';
import { addMembership } from '../organizations/store.ts';
import { cleanName, isUuid } from '../organizations/service.ts';
import { firstProjectOf } from '../projects/store.ts';
import { startSession, type StartedSession } from '../sessions/service.ts';
import { maskEmail } from '../users/email.ts';
import { findUser, findUserIdByEmail, insertUser, setPasswordHash } from '../users/store.ts';
import { toUserSummary, type UserSummary } from '../users/user-summary.ts';
import { FIRST_NAME_MAX_LENGTH, type SignupBody, type SignupInfo } from './schemas.ts';
import { deleteInvitesFor, findSignupInvite, isMemberByEmail, type SignupInvite } from './store.ts';
import type { Queryable } from '../../db/pool.ts';

const invalidInvite = () => validationError('The provided invite ID is not valid.', null, 'invalid_input');

/** PostHog's checks of an invite, in its words: it exists, has not expired, and its address has no account yet. */
async function usableInvite(db: Queryable, rawId: string, lock = false): Promise<SignupInvite> {
  const invite = isUuid(rawId) ? await findSignupInvite(db, rawId.toLowerCase(), lock) : null;
  if (!invite) throw invalidInvite();
  if (invite.is_expired) throw validationError('This invite has expired. Please ask your admin for a new one.', null, 'expired');
  if (await isMemberByEmail(db, invite.organization_id, invite.target_email)) {
    throw validationError('Another user with this email address already belongs to this organization.', null, 'existing_email_address');
  }
  if ((await findUserIdByEmail(db, invite.target_email)) !== null) {
    throw validationError(
      'An account with this email address exists already: sign in with it, and ask an admin to add it to the organization.',
      null,
      'account_exists',
    );
  }
  return invite;
}

/** `GET /api/signup/{id}/`: what the sign-up page shows; anyone holding the link may ask. */
export async function describeInvite(deps: AppDeps, rawId: string): Promise<SignupInfo> {
  const invite = await usableInvite(deps.pool, rawId);
  return {
    id: invite.id,
    target_email: maskEmail(invite.target_email),
    first_name: invite.first_name,
    organization_name: invite.organization_name,
  };
}

/**
 * `POST /api/signup/{id}/`: the invited person's account, with the invite's level in its
 * organization, in one transaction that also uses the invite up and starts their session.
 */
export async function acceptInvite(deps: AppDeps, rawId: string, body: SignupBody): Promise<{ user: UserSummary; session: StartedSession }> {
  const firstName = cleanName(body.first_name, 'first_name', FIRST_NAME_MAX_LENGTH);
  const lastName = body.last_name?.trim() ?? '';
  const preview = await usableInvite(deps.pool, rawId);
  checkPasswordStrength(body.password, [preview.target_email, firstName, lastName]);
  // Hashing takes a tenth of a second: outside the transaction, so no lock waits on it.
  const passwordHash = await hashPassword(body.password);
  const result = await withTransaction(deps.pool, async (client) => {
    const invite = await usableInvite(client, rawId, true);
    await lockOrganization(client, invite.organization_id);
    const { id: userId } = await insertUser(client, {
      email: invite.target_email,
      firstName,
      lastName,
      currentOrganizationId: invite.organization_id,
      currentProjectId: await firstProjectOf(client, invite.organization_id),
    });
    await setPasswordHash(client, userId, passwordHash);
    await addMembership(client, invite.organization_id, userId, invite.level);
    await deleteInvitesFor(client, invite.organization_id, invite.target_email);
    await deps.bus.publish(client, { kind: 'auth' });
    const session = await startSession(client, deps.authenticator, userId);
    const user = await findUser(client, userId);
    return { user: toUserSummary(user!), session };
  });
  deps.authenticator.invalidate();
  return result;
}
