import type { AccountsDeps } from '../deps.ts';
import type { ReadHandle } from '../../db/pool.ts';
import { checkPasswordStrength } from '../auth/password-rules.ts';
import { hashPassword } from '../auth/passwords.ts';
import { requiredField, validationError } from '../../kernel/errors.ts';
import { findMemberByUserId, lockOrganization } from '../members/store.ts';
import { addMembership } from '../organizations/store.ts';
import { cleanName, isUuid } from '../organizations/service.ts';
import { firstProjectOf } from '../projects/store.ts';
import { startSession, type StartedSession } from '../sessions/service.ts';
import { maskEmail } from '../users/email.ts';
import { findUser, findUserIdByEmail, insertUser, setCurrentOrganization, setPasswordHash } from '../users/store.ts';
import { toUserSummary, type UserSummary } from '../users/user-summary.ts';
import { FIRST_NAME_MAX_LENGTH, type SignupBody, type SignupInfo } from './schemas.ts';
import { deleteInvitesFor, findSignupInvite, isMemberByEmail, type SignupInvite } from './store.ts';
import { invalidInvite } from '../errors.ts';

/** Who opened the link, when the request carries a live session. */
export interface Visitor {
  userId: number;
  email: string;
}

/**
 * PostHog's checks of an invite, in its words: it exists and has not expired; signed in, it is for
 * this person's address and they are not a member yet; otherwise the address has no account yet.
 */
async function usableInvite(db: ReadHandle, rawId: string, visitor: Visitor | null, lock = false): Promise<SignupInvite> {
  const invite = isUuid(rawId) ? await findSignupInvite(db, rawId.toLowerCase(), lock) : null;
  if (!invite) throw invalidInvite();
  if (invite.is_expired) throw validationError('This invite has expired. Please ask your admin for a new one.', null, 'expired');
  if (visitor) {
    if (visitor.email.toLowerCase() !== invite.target_email.toLowerCase()) {
      throw validationError('This invite is intended for another email address.', null, 'invalid_recipient');
    }
    if (await findMemberByUserId(db, invite.organization_id, visitor.userId)) {
      throw validationError('You already are a member of this organization.', null, 'user_already_member');
    }
    return invite;
  }
  if (await isMemberByEmail(db, invite.organization_id, invite.target_email)) {
    throw validationError('Another user with this email address already belongs to this organization.', null, 'existing_email_address');
  }
  if ((await findUserIdByEmail(db, invite.target_email)) !== null) {
    throw validationError('An account with this email address exists already: sign in with it, then open this link again.', null, 'account_exists');
  }
  return invite;
}

/** `GET /api/signup/{id}/`: what the sign-up page shows; anyone holding the link may ask. */
export async function describeInvite(deps: AccountsDeps, rawId: string, visitor: Visitor | null): Promise<SignupInfo> {
  const invite = await usableInvite(deps.pool, rawId, visitor);
  return {
    id: invite.id,
    target_email: maskEmail(invite.target_email),
    first_name: invite.first_name,
    organization_name: invite.organization_name,
    existing_account: visitor !== null,
  };
}

export interface Accepted {
  user: UserSummary;
  /** A new account's session; null when a signed-in person joined. */
  session: StartedSession | null;
}

/**
 * `POST /api/signup/{id}/`. Signed in as the invited address: that account joins. Otherwise a new
 * account with the invite's level, in one transaction that also uses the invite up and starts the
 * session.
 */
export async function acceptInvite(deps: AccountsDeps, rawId: string, body: SignupBody, visitor: Visitor | null): Promise<Accepted> {
  if (visitor) return joinAsVisitor(deps, rawId, visitor);
  if (body.first_name === undefined) throw requiredField('first_name');
  if (body.password === undefined) throw requiredField('password');
  const firstName = cleanName(body.first_name, 'first_name', FIRST_NAME_MAX_LENGTH);
  const lastName = body.last_name?.trim() ?? '';
  const preview = await usableInvite(deps.pool, rawId, null);
  checkPasswordStrength(body.password, [preview.target_email, firstName, lastName]);
  // Hashing takes a tenth of a second: outside the transaction, so no lock waits on it.
  const passwordHash = await hashPassword(body.password);
  const result = await deps.units.run(async (unit) => {
    const { client } = unit;
    const invite = await usableInvite(client, rawId, null, true);
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
    await deps.bus.publish(unit, { kind: 'auth' });
    const session = await startSession(client, deps.authenticator, userId);
    const user = await findUser(client, userId);
    return { user: toUserSummary(user!), session };
  });
  return result;
}

async function joinAsVisitor(deps: AccountsDeps, rawId: string, visitor: Visitor): Promise<Accepted> {
  const result = await deps.units.run(async (unit) => {
    const { client } = unit;
    const invite = await usableInvite(client, rawId, visitor, true);
    await lockOrganization(client, invite.organization_id);
    await addMembership(client, invite.organization_id, visitor.userId, invite.level);
    await setCurrentOrganization(client, visitor.userId, invite.organization_id, await firstProjectOf(client, invite.organization_id));
    await deleteInvitesFor(client, invite.organization_id, invite.target_email);
    await deps.bus.publish(unit, { kind: 'auth' });
    const user = await findUser(client, visitor.userId);
    return { user: toUserSummary(user!), session: null };
  });
  return result;
}
