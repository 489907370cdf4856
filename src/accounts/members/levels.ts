/**
 * Membership levels (PostHog's numbers) and what each may do to whom, as pure functions of those
 * numbers. Each answers null when the action is allowed, else the reason in PostHog's words. The
 * API enforces them (rules.ts and the services throw the reason); the console imports this file
 * and shows the same reason beside what it disables. It imports nothing, so the console can.
 */
export const MEMBERSHIP_LEVELS = { member: 1, admin: 8, owner: 15 } as const;

export type MembershipLevelName = keyof typeof MEMBERSHIP_LEVELS;

export const LEVEL_NAMES = Object.keys(MEMBERSHIP_LEVELS) as MembershipLevelName[];

export function isAdminOrOwner(level: number): boolean {
  return level >= MEMBERSHIP_LEVELS.admin;
}

interface Actor {
  level: number;
  /** The actor is the member acted on. */
  isTarget: boolean;
}

/** Changing `target`'s level; without `next`, whether any change is possible at all. Checked in PostHog's order. */
export function levelChangeRefusal(actor: Actor, target: number, next?: number): string | null {
  if (actor.isTarget) return "You can't change your own access level.";
  if (!isAdminOrOwner(actor.level)) return 'You can only edit others if you are an admin.';
  if (target > actor.level) return 'You can only edit others with level lower or equal to you.';
  if (next === undefined) return null;
  if (next === MEMBERSHIP_LEVELS.owner && actor.level !== MEMBERSHIP_LEVELS.owner) {
    return "You can only make another member owner if you're this organization's owner.";
  }
  if (next > actor.level) return 'You can only change access level of others to lower or equal to your current one.';
  return null;
}

/** Anyone may leave; removing someone else takes an admin, and never someone above you. */
export function removalRefusal(actor: Actor, target: number): string | null {
  if (actor.isTarget) return null;
  if (!isAdminOrOwner(actor.level)) return 'You can only edit others if you are an admin.';
  if (target > actor.level) return 'You can only edit others with level lower or equal to you.';
  return null;
}

/** An organization always keeps an owner: `ownersAfter` is how many the change would leave. */
export function lastOwnerRefusal(ownersAfter: number, leaving: boolean): string | null {
  if (ownersAfter > 0) return null;
  return leaving
    ? 'You are the only owner of this organization: make someone else an owner before you leave.'
    : 'An organization must keep at least one owner: make someone else an owner first.';
}

/** Seeing and cancelling invites: they carry the link that lets someone join. */
export function manageInvitesRefusal(level: number): string | null {
  return isAdminOrOwner(level) ? null : 'Only admins and owners can manage invites.';
}

/** New members and invites: admins and owners only, at most at their own level (`invited`, when known). */
export function inviteRefusal(level: number, invited?: number): string | null {
  if (!isAdminOrOwner(level)) return 'Only admins and owners can invite new members.';
  if (invited !== undefined && invited > level) return 'You cannot invite a user with a higher permission level than your own.';
  return null;
}

/**
 * Deleting a project or an environment: PostHog lets any member read and update (rename) one and
 * asks an admin to delete it, in these words.
 */
export function projectDeleteRefusal(level: number | null): string | null {
  return level !== null && isAdminOrOwner(level) ? null : "You don't have sufficient permissions in the project.";
}

/** Creating projects and environments, resetting a project's token, rotating its secret. */
export function projectAdminRefusal(level: number | null): string | null {
  return level !== null && isAdminOrOwner(level) ? null : 'Your organization access level is insufficient.';
}

/** A password reset link for a member, to hand over: admins and owners, never for someone above them. */
export function resetLinkRefusal(actor: number, target: number): string | null {
  if (!isAdminOrOwner(actor)) return 'Only admins and owners can make password reset links.';
  if (target > actor) return 'You can only make reset links for members with level lower or equal to you.';
  return null;
}
