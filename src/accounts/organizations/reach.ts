import type { Authenticator } from '../auth/authenticator.ts';
import type { Membership, Principal } from '../auth/principal.ts';
import { MEMBERSHIP_LEVELS } from '../members/levels.ts';

/**
 * What a personal API key may reach: the user's organizations, narrowed by the key's
 * `scoped_organizations` and `scoped_teams` (an empty list means "not narrowed").
 */
export interface KeyReach {
  userId: number;
  organizations: readonly string[] | null;
  teams: readonly number[] | null;
}

export function keyReach(principal: Principal): KeyReach {
  return {
    userId: principal.user.id,
    organizations: principal.scopedOrganizations?.length ? principal.scopedOrganizations : null,
    teams: principal.scopedTeams?.length ? principal.scopedTeams : null,
  };
}

/** The key is limited to some projects or organizations (as opposed to all of the user's). */
export function keyIsNarrowed(principal: Principal): boolean {
  const reach = keyReach(principal);
  return reach.organizations !== null || reach.teams !== null;
}

/** PostHog's numeric membership level, as its clients compare them. */
export function membershipLevelNumber(level: Membership['level']): number {
  return MEMBERSHIP_LEVELS[level];
}

/**
 * The key may act on this organization (membership is checked separately): it is inside the
 * key's scoped organizations, and, for a key scoped to projects, holds one of them.
 */
export async function keyReachesOrganization(
  principal: Principal,
  organizationId: string,
  authenticator: Authenticator,
): Promise<boolean> {
  const reach = keyReach(principal);
  if (reach.organizations && !reach.organizations.includes(organizationId)) return false;
  if (reach.teams) {
    for (const teamId of reach.teams) {
      const project = await authenticator.project(teamId);
      if (project?.organizationId === organizationId) return true;
    }
    return false;
  }
  return true;
}

/**
 * `@current` for organizations, mirroring `@current` for projects: the organization of the
 * key's first scoped project; else the user's current organization when the key's scoped
 * organizations allow it, else the first of them; else the user's first organization.
 */
export async function currentOrganizationId(principal: Principal, authenticator: Authenticator): Promise<string | null> {
  const reach = keyReach(principal);
  if (reach.teams) return (await authenticator.project(reach.teams[0]))?.organizationId ?? null;
  const current = principal.user.current_organization_id;
  if (reach.organizations) {
    return current && reach.organizations.includes(current) ? current : reach.organizations[0];
  }
  return current ?? principal.memberships[0]?.organizationId ?? null;
}
