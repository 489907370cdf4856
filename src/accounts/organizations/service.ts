import type { AccountsDeps } from '../deps.ts';
import { membershipLevel, type Membership, type Principal } from '../auth/principal.ts';
import { notFound, organizationOutsideKey, permissionDenied, scopedProjectsOnly, validationError } from '../../kernel/errors.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { listReachableProjects, type ProjectRow } from '../projects/store.ts';
import { currentOrganizationId, keyIsNarrowed, keyReach, keyReachesOrganization, membershipLevelNumber } from './reach.ts';
import type { CreateOrganizationBody, Organization, OrganizationSummary, TeamBasic } from './schemas.ts';
import {
  addMembership,
  findOrganizationOfUser,
  insertOrganization,
  listReachableOrganizations,
  type OrganizationOfUser,
} from './store.ts';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export function toTeamBasic(project: ProjectRow): TeamBasic {
  return {
    id: project.id,
    project_id: project.project_group_id,
    organization: project.organization_id,
    name: project.name,
    api_token: project.api_token,
    timezone: project.timezone,
    color: project.color,
  };
}

/** `environments`: PostHog's teams; `projects`: each project through its first environment. */
function toOrganization(row: OrganizationOfUser, environments: ProjectRow[], projects: ProjectRow[]): Organization {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    logo_media_id: null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    membership_level: membershipLevelNumber(row.membership_level),
    member_count: row.member_count,
    teams: environments.map(toTeamBasic),
    projects: projects.map((p) => ({ id: p.id, organization_id: p.organization_id, name: p.name })),
  };
}

export function toOrganizationSummary(row: OrganizationOfUser): OrganizationSummary {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    logo_media_id: null,
    membership_level: membershipLevelNumber(row.membership_level),
  };
}

export interface ResolvedOrganization {
  id: string;
  level: Membership['level'];
}

/**
 * An organization id from a path (`@current` or a UUID): 404 when it is malformed, unknown or
 * the user is not a member; 403 for a key limited to projects (no organization-level route takes
 * one) or to other organizations. The auth hook calls it for every route with `{organization_id}`.
 */
export async function resolveOrganization(
  deps: Pick<AccountsDeps, 'authenticator'>,
  principal: Principal,
  raw: string,
): Promise<ResolvedOrganization> {
  if (keyReach(principal).teams !== null) throw scopedProjectsOnly();
  const id = raw === '@current' ? await currentOrganizationId(principal, deps.authenticator) : isUuid(raw) ? raw.toLowerCase() : null;
  const level = id === null ? null : membershipLevel(principal, id);
  if (id === null || level === null) throw notFound();
  if (!(await keyReachesOrganization(principal, id, deps.authenticator))) throw organizationOutsideKey(id);
  return { id, level };
}

/** The organization as the caller sees it (its projects narrowed to those the key reaches). */
export async function organizationBody(deps: AccountsDeps, principal: Principal, organizationId: string): Promise<Organization | null> {
  const row = await findOrganizationOfUser(deps.pool, organizationId, principal.user.id);
  if (!row) return null;
  const reach = keyReach(principal);
  const [environments, projects] = await Promise.all([
    listReachableProjects(deps.pool, reach, { kind: 'environments', organizationId }),
    listReachableProjects(deps.pool, reach, { kind: 'projects', organizationId }),
  ]);
  return toOrganization(row, environments.rows, projects.rows);
}

export async function listOrganizations(deps: AccountsDeps, principal: Principal, page: Page) {
  const reach = keyReach(principal);
  const { count, rows } = await listReachableOrganizations(deps.pool, reach, page);
  const [environments, projects] = rows.length
    ? await Promise.all([
        listReachableProjects(deps.pool, reach, { kind: 'environments' }).then((r) => r.rows),
        listReachableProjects(deps.pool, reach, { kind: 'projects' }).then((r) => r.rows),
      ])
    : [[], []];
  const results = rows.map((row) =>
    toOrganization(
      row,
      environments.filter((p) => p.organization_id === row.id),
      projects.filter((p) => p.organization_id === row.id),
    ),
  );
  return { count, results };
}

export async function getOrganization(deps: AccountsDeps, principal: Principal, raw: string): Promise<Organization> {
  const { id } = await resolveOrganization(deps, principal, raw);
  const body = await organizationBody(deps, principal, id);
  if (!body) throw notFound();
  return body;
}

/** Trimmed and non-blank (DRF trims strings), or a 400 naming the field. */
export function cleanName(value: string, attr: string, maxLength: number): string {
  const name = value.trim();
  if (name === '') throw validationError('This field may not be blank.', attr, 'blank');
  if (name.length > maxLength) {
    throw validationError(`Ensure this field has no more than ${maxLength} characters.`, attr, 'max_length');
  }
  return name;
}

/**
 * The caller becomes the owner. Their current organization and project stay as they are:
 * `@current` never moves because another organization was created.
 */
export async function createOrganization(deps: AccountsDeps, principal: Principal, body: CreateOrganizationBody): Promise<Organization> {
  if (keyIsNarrowed(principal)) {
    throw permissionDenied('This API key is limited to specific organizations or projects and cannot create organizations.');
  }
  const name = cleanName(body.name, 'name', 64);
  const organization = await deps.units.run(async (unit) => {
    const { client } = unit;
    const created = await insertOrganization(client, name);
    await addMembership(client, created.id, principal.user.id, 'owner');
    await deps.bus.publish(unit, { kind: 'auth' });
    return created;
  });
  const created = await organizationBody(deps, principal, organization.id);
  if (!created) throw new Error('organization vanished right after it was created');
  return created;
}
