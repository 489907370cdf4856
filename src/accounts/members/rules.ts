import type { Membership } from '../auth/principal.ts';
import { permissionDenied, validationError } from '../../kernel/errors.ts';
import { MEMBERSHIP_LEVELS } from '../organizations/reach.ts';

type Level = Membership['level'];

const rank = (level: Level) => MEMBERSHIP_LEVELS[level];

/** PostHog's numbers (1 member, 8 admin, 15 owner) to a level; anything else is a 400 on `attr`. */
export function levelFromNumber(value: number, attr = 'level'): Level {
  const level = (Object.keys(MEMBERSHIP_LEVELS) as Level[]).find((name) => MEMBERSHIP_LEVELS[name] === value);
  if (!level) throw validationError(`"${value}" is not a valid choice.`, attr, 'invalid_choice');
  return level;
}

export function isAdminOrOwner(level: Level): boolean {
  return rank(level) >= MEMBERSHIP_LEVELS.admin;
}

/** PostHog's rules for changing someone's level, checked in its order. */
export function checkLevelChange(actor: { level: Level; isTarget: boolean }, target: Level, next: Level): void {
  if (actor.isTarget) throw permissionDenied("You can't change your own access level.");
  if (!isAdminOrOwner(actor.level)) throw permissionDenied('You can only edit others if you are an admin.');
  if (rank(target) > rank(actor.level)) throw permissionDenied('You can only edit others with level lower or equal to you.');
  if (next === 'owner' && actor.level !== 'owner') {
    throw permissionDenied("You can only make another member owner if you're this organization's owner.");
  }
  if (rank(next) > rank(actor.level)) {
    throw permissionDenied('You can only change access level of others to lower or equal to your current one.');
  }
}

/** Anyone may leave; removing someone else takes an admin, and never someone above you. */
export function checkRemoval(actor: { level: Level; isTarget: boolean }, target: Level): void {
  if (actor.isTarget) return;
  if (!isAdminOrOwner(actor.level)) throw permissionDenied('You can only edit others if you are an admin.');
  if (rank(target) > rank(actor.level)) throw permissionDenied('You can only edit others with level lower or equal to you.');
}

/** An organization always keeps an owner. */
export function checkOwnersLeft(ownersAfter: number, leaving: boolean): void {
  if (ownersAfter > 0) return;
  throw validationError(
    leaving
      ? 'You are the only owner of this organization: make someone else an owner before you leave.'
      : 'An organization must keep at least one owner: make someone else an owner first.',
    null,
    'last_owner',
  );
}

/** New members and invites: admins and owners only, at most at their own level. */
export function checkInvite(actorLevel: Level, invited: Level): void {
  if (!isAdminOrOwner(actorLevel)) throw permissionDenied('Only admins and owners can invite new members.');
  if (rank(invited) > rank(actorLevel)) {
    throw permissionDenied('You cannot invite a user with a higher permission level than your own.');
  }
}
