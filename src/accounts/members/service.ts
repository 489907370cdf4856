import type { AccountsDeps } from '../deps.ts';
import type { UnitOfWork, WriteTx } from '../../db/unit-of-work.ts';
import type { Principal } from '../auth/principal.ts';
import { notFound } from '../../kernel/errors.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { membershipLevelNumber } from '../organizations/reach.ts';
import { isUuid, resolveOrganization } from '../organizations/service.ts';
import { endSessionsOfUser } from '../sessions/service.ts';
import { checkLevelChange, checkOwnersLeft, checkRemoval, levelFromNumber } from './rules.ts';
import type { Member } from './schemas.ts';
import {
  countOwners,
  deleteMembership,
  findMemberByUserId,
  findMemberByUserUuid,
  listMembers,
  lockOrganization,
  moveCurrentOutOf,
  updateMemberLevel,
  type MemberRow,
} from './store.ts';

export function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    user: row.user,
    level: membershipLevelNumber(row.level),
    joined_at: row.joined_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    is_2fa_enabled: false,
    has_social_auth: row.has_sso,
    has_password: row.has_password,
    last_login: row.last_login?.toISOString() ?? null,
  };
}

export async function listOrganizationMembers(deps: AccountsDeps, principal: Principal, rawOrganization: string, page: Page) {
  const { id } = await resolveOrganization(deps, principal, rawOrganization);
  const { count, rows } = await listMembers(deps.pool, id, page);
  return { count, results: rows.map(toMember) };
}

interface LockedPair {
  actor: MemberRow;
  target: MemberRow;
}

/**
 * Runs `work` with the organization's memberships locked and both the caller's and the target's
 * membership read under the lock (not from the 5 s authentication cache). Every process drops its
 * cached grants on commit.
 */
async function withMembers<T>(
  deps: AccountsDeps,
  principal: Principal,
  rawOrganization: string,
  userUuid: string,
  work: (client: WriteTx, pair: LockedPair, organizationId: string, unit: UnitOfWork) => Promise<T>,
): Promise<T> {
  const { id } = await resolveOrganization(deps, principal, rawOrganization);
  if (!isUuid(userUuid)) throw notFound();
  const result = await deps.units.run(async (unit) => {
    const { client } = unit;
    if (!(await lockOrganization(client, id))) throw notFound();
    const actor = await findMemberByUserId(client, id, principal.user.id);
    const target = await findMemberByUserUuid(client, id, userUuid.toLowerCase());
    if (!actor || !target) throw notFound();
    const value = await work(client, { actor, target }, id, unit);
    await deps.bus.publish(unit, { kind: 'auth' });
    return value;
  });
  return result;
}

/** `PATCH …/members/{user uuid}/` with `{level}`: PostHog's rules; the last owner stays an owner. */
export async function updateMember(
  deps: AccountsDeps,
  principal: Principal,
  rawOrganization: string,
  userUuid: string,
  levelNumber: number,
): Promise<Member> {
  const next = levelFromNumber(levelNumber);
  return withMembers(deps, principal, rawOrganization, userUuid, async (client, { actor, target }, organizationId) => {
    checkLevelChange({ level: actor.level, isTarget: actor.id === target.id }, target.level, next);
    if (target.level === 'owner' && next !== 'owner') checkOwnersLeft((await countOwners(client, organizationId)) - 1, false);
    if (next !== target.level) await updateMemberLevel(client, target.id, next);
    const updated = await findMemberByUserId(client, organizationId, target.user_id);
    return toMember(updated!);
  });
}

/**
 * `DELETE …/members/{user uuid}/`: removes someone (an admin, not above oneself) or leaves. Every
 * session of the person ends at once, and their keys no longer reach the organization.
 */
export async function removeMember(deps: AccountsDeps, principal: Principal, rawOrganization: string, userUuid: string): Promise<void> {
  await withMembers(deps, principal, rawOrganization, userUuid, async (client, { actor, target }, organizationId, unit) => {
    const leaving = actor.id === target.id;
    checkRemoval({ level: actor.level, isTarget: leaving }, target.level);
    if (target.level === 'owner') checkOwnersLeft((await countOwners(client, organizationId)) - 1, leaving);
    await deleteMembership(client, target.id);
    await moveCurrentOutOf(client, target.user_id, organizationId);
    await endSessionsOfUser(unit, deps.bus, target.user_id);
  });
}
