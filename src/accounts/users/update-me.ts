import type { AccountsDeps } from '../deps.ts';
import { checkPasswordStrength } from '../auth/password-rules.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { principalCanReach, type Principal } from '../auth/principal.ts';
import { orNotFound, validationError } from '../../kernel/errors.ts';
import { cleanName } from '../organizations/service.ts';
import { endOtherSessionsOfUser } from '../sessions/service.ts';
import { clearAccountFailures, recordFailure } from '../sessions/store.ts';
import { accountOfUser, ensureNotThrottled } from '../sessions/throttle.ts';
import { cleanEmail } from './email.ts';
import { NAME_MAX_LENGTH, type Me, type UpdateMeBody } from './schemas.ts';
import { me } from './service.ts';
import { findUser, findUserIdByEmail, setCurrentOrganization, updateProfile, type ProfileChanges, type UserRecord } from './store.ts';
import { emailTaken } from '../errors.ts';

/** `set_current_team`: an environment the caller may reach becomes their current one, with its organization. */
async function setCurrentTeam(deps: AccountsDeps, principal: Principal, id: number): Promise<Principal> {
  const project = await deps.authenticator.project(id);
  if (!project || !principalCanReach(principal, project)) {
    throw validationError(`Object with id=${id} does not exist.`, 'set_current_team', 'does_not_exist');
  }
  await deps.units.run(async (unit) => {
    await setCurrentOrganization(unit.client, principal.user.id, project.organizationId, project.id);
    // Cached principals carry the current environment.
    await deps.bus.publish(unit, { kind: 'auth' });
  });
  return { ...principal, user: { ...principal.user, current_project_id: project.id, current_organization_id: project.organizationId } };
}

/**
 * A new password or e-mail address needs the current password (when one is set): a stolen
 * session or key cannot take the account over. Wrong guesses count toward sign-in throttling, so
 * they come no faster than the sign-in page allows.
 */
async function checkCurrentPassword(
  deps: AccountsDeps,
  user: UserRecord,
  given: string | undefined,
  address: string,
  changing: 'password' | 'email address',
): Promise<void> {
  if (user.password_hash === null) return;
  if (!given) throw validationError(`This field is required when updating your ${changing}.`, 'current_password', 'required');
  const key = { account: accountOfUser(user.id), address };
  await ensureNotThrottled(deps.pool, key, deps.accounts.throttle);
  if (!(await verifyPassword(given, user.password_hash))) {
    await deps.units.run(({ client }) => recordFailure(client, key, deps.accounts.throttle.windowMs));
    throw validationError('Your current password is incorrect.', 'current_password', 'incorrect_password');
  }
  await deps.units.run(({ client }) => clearAccountFailures(client, key.account));
}

/**
 * `PATCH /api/users/@me/`: names, e-mail, password. A new e-mail address or password needs the
 * current password; a password change ends every other session of the person (the one making the
 * change stays signed in).
 */
export async function updateMe(deps: AccountsDeps, caller: Principal, body: UpdateMeBody, address: string): Promise<Me> {
  let principal = caller;
  const user = orNotFound(await findUser(deps.pool, principal.user.id));
  const changes: ProfileChanges = {};
  if (body.first_name !== undefined) changes.firstName = cleanName(body.first_name, 'first_name', NAME_MAX_LENGTH);
  if (body.last_name !== undefined) changes.lastName = body.last_name.trim();
  if (body.email !== undefined) {
    const email = cleanEmail(body.email, 'email');
    const owner = await findUserIdByEmail(deps.pool, email);
    if (owner !== null && owner !== user.id) throw emailTaken();
    if (email !== user.email) changes.email = email;
  }
  if (body.password !== undefined || changes.email !== undefined) {
    await checkCurrentPassword(deps, user, body.current_password, address, body.password !== undefined ? 'password' : 'email address');
  }
  if (body.password !== undefined) {
    const attributes = [changes.email ?? user.email, changes.firstName ?? user.first_name, changes.lastName ?? user.last_name];
    checkPasswordStrength(body.password, attributes);
    changes.passwordHash = await hashPassword(body.password);
  }
  if (body.set_current_team !== undefined) principal = await setCurrentTeam(deps, principal, body.set_current_team);
  if (Object.keys(changes).length > 0) {
    await deps.units.run(async (unit) => {
      const { client } = unit;
      if (!(await updateProfile(client, user.id, changes))) throw emailTaken();
      const keep = principal.kind === 'session' ? principal.sessionHash : null;
      if (changes.passwordHash !== undefined) await endOtherSessionsOfUser(unit, deps.bus, user.id, keep);
      // Cached principals carry the name and e-mail.
      await deps.bus.publish(unit, { kind: 'auth' });
    });
  }
  return me(deps, principal);
}
