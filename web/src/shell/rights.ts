/**
 * What the signed-in person may do in their current organization: the API's own rules
 * (src/accounts/members/levels.ts) applied to the `membership_level` that `users/@me` reports.
 * Each answer is null when the action is allowed, else the reason the console shows beside the
 * control it disables; the API refuses the same actions with the same rule.
 */
import {
  inviteRefusal,
  lastOwnerRefusal,
  levelChangeRefusal,
  manageInvitesRefusal,
  MEMBERSHIP_LEVELS,
  projectAdminRefusal,
  removalRefusal,
  resetLinkRefusal,
} from '../../../src/accounts/members/levels.ts';
import { useMe } from './session.ts';

export { MEMBERSHIP_LEVELS };

/** The levels in the API's numbers (`membership_level`, a member's `level`), lowest first, with their names. */
export const LEVEL_CHOICES: Array<{ level: number; name: string }> = [
  { level: MEMBERSHIP_LEVELS.member, name: 'Member' },
  { level: MEMBERSHIP_LEVELS.admin, name: 'Admin' },
  { level: MEMBERSHIP_LEVELS.owner, name: 'Owner' },
];

export function levelName(level: number | null | undefined): string {
  return LEVEL_CHOICES.find((entry) => entry.level === level)?.name ?? 'Member';
}

/** A member as the rules see them: their level, whether they are the signed-in person. */
export interface MemberRef {
  level: number;
  isMe: boolean;
}

export interface OrganizationRights {
  /** The signed-in person's level in the current organization (0 when they have none). */
  level: number;
  /** Resetting the project token, rotating the secret token, deleting the project. */
  manageProject: string | null;
  invite: string | null;
  inviteAt(level: number): string | null;
  manageInvites: string | null;
  /** Changing `member`'s level at all, or (with `next`) to that level. */
  changeLevel(member: MemberRef, next?: number): string | null;
  /** Removing `member` (leaving, for oneself) while the organization has `owners` owners. */
  remove(member: MemberRef, owners: number): string | null;
  /** Making a password reset link for `member`. */
  resetLink(member: MemberRef): string | null;
}

export function organizationRights(membershipLevel: number | null | undefined): OrganizationRights {
  const level = membershipLevel ?? 0;
  const project = projectAdminRefusal(membershipLevel ?? null);
  return {
    level,
    manageProject: project === null ? null : 'Only admins and owners of the organization can do this.',
    invite: inviteRefusal(level),
    inviteAt: (invited) => inviteRefusal(level, invited),
    manageInvites: manageInvitesRefusal(level),
    changeLevel: (member, next) => levelChangeRefusal({ level, isTarget: member.isMe }, member.level, next),
    remove: (member, owners) =>
      removalRefusal({ level, isTarget: member.isMe }, member.level) ??
      (member.level === MEMBERSHIP_LEVELS.owner ? lastOwnerRefusal(owners - 1, member.isMe) : null),
    resetLink: (member) => resetLinkRefusal(level, member.level),
  };
}

export function useOrganizationRights(): OrganizationRights {
  return organizationRights(useMe().organization?.membership_level);
}
