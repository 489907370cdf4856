import type { Membership } from '../auth/principal.ts';
import { permissionDenied, validationError } from '../../kernel/errors.ts';
import { inviteRefusal, lastOwnerRefusal, LEVEL_NAMES, levelChangeRefusal, manageInvitesRefusal, MEMBERSHIP_LEVELS, projectAdminRefusal, removalRefusal, resetLinkRefusal } from './levels.ts';

type Level = Membership['level'];

const rank = (level: Level) => MEMBERSHIP_LEVELS[level];

/** PostHog's numbers (1 member, 8 admin, 15 owner) to a level; anything else is a 400 on `attr`. */
export function levelFromNumber(value: number, attr = 'level'): Level {
  const level = LEVEL_NAMES.find((name) => MEMBERSHIP_LEVELS[name] === value);
  if (!level) throw validationError(`"${value}" is not a valid choice.`, attr, 'invalid_choice');
  return level;
}

function refuse(reason: string | null): void {
  if (reason !== null) throw permissionDenied(reason);
}

/** PostHog's rules for changing someone's level, checked in its order. */
export function checkLevelChange(actor: { level: Level; isTarget: boolean }, target: Level, next: Level): void {
  refuse(levelChangeRefusal({ level: rank(actor.level), isTarget: actor.isTarget }, rank(target), rank(next)));
}

/** Anyone may leave; removing someone else takes an admin, and never someone above you. */
export function checkRemoval(actor: { level: Level; isTarget: boolean }, target: Level): void {
  refuse(removalRefusal({ level: rank(actor.level), isTarget: actor.isTarget }, rank(target)));
}

/** An organization always keeps an owner. */
export function checkOwnersLeft(ownersAfter: number, leaving: boolean): void {
  const reason = lastOwnerRefusal(ownersAfter, leaving);
  if (reason !== null) throw validationError(reason, null, 'last_owner');
}

/** New members and invites: admins and owners only, at most at their own level. */
export function checkInvite(actorLevel: Level, invited: Level): void {
  refuse(inviteRefusal(rank(actorLevel), rank(invited)));
}

/** Seeing and cancelling invites: admins and owners. */
export function checkManageInvites(actorLevel: Level): void {
  refuse(manageInvitesRefusal(rank(actorLevel)));
}

/** Project administration (projects, tokens, webhooks): organization admins and owners only. */
export function requireProjectAdmin(level: Membership['level'] | null): void {
  const reason = projectAdminRefusal(level === null ? null : MEMBERSHIP_LEVELS[level]);
  if (reason !== null) throw permissionDenied(reason);
}

/** Reset links for a member: admins and owners, never for someone above them. */
export function checkResetLink(actor: Level, target: Level): void {
  refuse(resetLinkRefusal(rank(actor), rank(target)));
}
