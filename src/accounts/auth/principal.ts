import { ApiError, organizationOutsideKey, permissionDenied, projectOutsideKey } from '../../kernel/errors.ts';
import type { UserRow } from '../users/user-summary.ts';

export interface Membership {
  organizationId: string;
  level: 'member' | 'admin' | 'owner';
}

interface PrincipalBase {
  user: UserRow & { current_project_id: number | null; current_organization_id: string | null };
  scopes: ReadonlySet<string>;
  scopedTeams: readonly number[] | null;
  scopedOrganizations: readonly string[] | null;
  memberships: readonly Membership[];
}

/** A user acting through one of their personal API keys: the key's scopes and scoping apply. */
export interface KeyPrincipal extends PrincipalBase {
  kind: 'personal_api_key';
  keyId: string;
}

/**
 * A person signed in to the console: every scope, no scoping; what they may do follows their
 * membership levels, as for any key of theirs.
 */
export interface SessionPrincipal extends PrincipalBase {
  kind: 'session';
  /** sha256 of the session cookie's value. */
  sessionHash: string;
  /** sha256 of the session's CSRF token, which every write must carry. */
  csrfHash: string;
}

/** Who is calling. */
export type Principal = KeyPrincipal | SessionPrincipal;

export interface ProjectRef {
  id: number;
  organizationId: string;
}

/**
 * Why the principal may not reach the project, or null when it may: the user must be a member of
 * its organization, and a key's `scoped_teams` and `scoped_organizations` (an empty list means
 * "not narrowed") must hold it.
 */
export function projectRefusal(principal: Principal, project: ProjectRef): ApiError | null {
  if (!principal.memberships.some((m) => m.organizationId === project.organizationId)) {
    return permissionDenied("You don't have access to the project.");
  }
  if (principal.scopedTeams?.length && !principal.scopedTeams.includes(project.id)) return projectOutsideKey(project.id);
  if (principal.scopedOrganizations?.length && !principal.scopedOrganizations.includes(project.organizationId)) {
    return organizationOutsideKey(project.organizationId);
  }
  return null;
}

/** The project may be reached: the user is a member of its organization and the key's scoping allows it. */
export function principalCanReach(principal: Principal, project: ProjectRef): boolean {
  return projectRefusal(principal, project) === null;
}

export function membershipLevel(principal: Principal, organizationId: string): Membership['level'] | null {
  return principal.memberships.find((m) => m.organizationId === organizationId)?.level ?? null;
}
