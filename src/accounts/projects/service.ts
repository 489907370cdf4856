import type { AccountsDeps } from '../deps.ts';
import { recordActivity } from '../activity/store.ts';
import { membershipLevel, type Principal, type ProjectRef } from '../auth/principal.ts';
import { notFound, organizationOutsideKey, validationError } from '../../kernel/errors.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { requireProjectAdmin } from '../members/rules.ts';
import { keyReach, keyReachesOrganization } from '../organizations/reach.ts';
import { cleanName, resolveOrganization, type ResolvedOrganization } from '../organizations/service.ts';
import { setCurrentProjectIfUnset } from '../users/store.ts';
import type { CreateProjectBody, Project, UpdateProjectBody } from './schemas.ts';
import {
  deleteProject as deleteProjectRow,
  findProject,
  insertProject,
  listReachableProjects,
  replaceProjectToken,
  replaceSecretToken,
  updateProject as updateProjectRow,
  type ProjectRow,
} from './store.ts';

const NAME_MAX_LENGTH = 200;

/** `secretToken` in clear only when the project was just created; otherwise its mask. */
function toProject(row: ProjectRow, secretToken?: string): Project {
  return {
    id: row.id,
    project_id: row.id,
    name: row.name,
    organization: row.organization_id,
    api_token: row.api_token,
    secret_api_token: secretToken ?? row.secret_token_mask,
    timezone: row.timezone,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** An IANA zone in its canonical spelling, or a 400 on `timezone`. */
export function cleanTimezone(value: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value.trim() }).resolvedOptions().timeZone;
  } catch {
    throw validationError(`"${value}" is not a valid choice.`, 'timezone', 'invalid_choice');
  }
}

export async function listProjects(deps: AccountsDeps, principal: Principal, page: Page) {
  const { count, rows } = await listReachableProjects(deps.pool, keyReach(principal), {}, page);
  return { count, results: rows.map((row) => toProject(row)) };
}

/** `GET /api/organizations/{id}/projects/`: the organization's projects the key may reach (the organization is already resolved). */
export async function listOrganizationProjects(deps: AccountsDeps, principal: Principal, organizationId: string, page: Page) {
  const { count, rows } = await listReachableProjects(deps.pool, keyReach(principal), { organizationId }, page);
  return { count, results: rows.map((row) => toProject(row)) };
}

/** `project` was resolved and access-checked by the auth hook. */
export async function getProject(deps: AccountsDeps, project: ProjectRef): Promise<Project> {
  const row = await findProject(deps.pool, project.id);
  if (!row) throw notFound();
  return toProject(row);
}

/** The organization named in a `POST /api/projects/` body: unknown or not the caller's → 400 on `organization`. */
async function organizationFromBody(deps: AccountsDeps, principal: Principal, raw: string): Promise<ResolvedOrganization> {
  const id = raw.toLowerCase();
  const level = membershipLevel(principal, id);
  if (level === null) {
    throw validationError(`Invalid pk "${raw}" - object does not exist.`, 'organization', 'does_not_exist');
  }
  if (!(await keyReachesOrganization(principal, id, deps.authenticator))) throw organizationOutsideKey(id);
  return { id, level };
}

/**
 * Creates a project in the organization of the path, else the body's `organization`, else the
 * caller's current organization. Only admins and owners may (a key scoped to projects never gets here: the auth hook refuses it).
 * The answer is the only one that ever carries the secret token in clear.
 */
export async function createProject(
  deps: AccountsDeps,
  principal: Principal,
  body: CreateProjectBody,
  organizationParam?: string,
): Promise<Project> {
  const organization =
    organizationParam !== undefined
      ? await resolveOrganization(deps, principal, organizationParam)
      : body.organization !== undefined
        ? await organizationFromBody(deps, principal, body.organization)
        : await resolveOrganization(deps, principal, '@current');
  requireProjectAdmin(organization.level);
  const name = cleanName(body.name, 'name', NAME_MAX_LENGTH);
  const timezone = body.timezone === undefined ? undefined : cleanTimezone(body.timezone);

  const created = await deps.units.run(async (unit) => {
    const { client } = unit;
    const result = await insertProject(client, { organizationId: organization.id, name });
    const row = timezone === undefined ? result.project : await updateProjectRow(client, result.project.id, { timezone });
    await setCurrentProjectIfUnset(client, principal.user.id, { id: result.project.id, organizationId: organization.id });
    await deps.bus.publish(unit, { kind: 'auth' });
    return { row: row ?? result.project, secretToken: result.secretToken };
  });
  return toProject(created.row, created.secretToken);
}

export async function updateProject(deps: AccountsDeps, project: ProjectRef, body: UpdateProjectBody): Promise<Project> {
  const changes = {
    name: body.name === undefined ? undefined : cleanName(body.name, 'name', NAME_MAX_LENGTH),
    timezone: body.timezone === undefined ? undefined : cleanTimezone(body.timezone),
  };
  const row =
    changes.name === undefined && changes.timezone === undefined
      ? await findProject(deps.pool, project.id)
      : await deps.units.run(({ client }) => updateProjectRow(client, project.id, changes));
  if (!row) throw notFound();
  return toProject(row);
}

/** Admins and owners only; everything in the project goes with it. */
export async function deleteProject(deps: AccountsDeps, principal: Principal, project: ProjectRef): Promise<void> {
  requireProjectAdmin(membershipLevel(principal, project.organizationId));
  const deleted = await deps.units.run(async (unit) => {
    const { client } = unit;
    const gone = await deleteProjectRow(client, project);
    await deps.bus.publish(unit, { kind: 'project', projectId: project.id });
    return gone;
  });
  if (!deleted) throw notFound();
}

/** PostHog's activity entry for a project ("Team") change of one field. */
function tokenActivity(principal: Principal, project: ProjectRow, field: string, before: string, after: string) {
  return {
    projectId: project.id,
    scope: 'Team',
    itemId: String(project.id),
    activity: 'updated',
    userId: principal.user.id,
    detail: { name: project.name, short_id: null, type: null, trigger: null, changes: [{ type: 'Team', action: 'changed' as const, field, before, after }] },
  };
}

/** `PATCH /api/projects/{id}/reset_token/`: a new public token; SDKs sending the old one are refused at once. Admins and owners. */
export async function resetProjectToken(deps: AccountsDeps, principal: Principal, project: ProjectRef): Promise<Project> {
  requireProjectAdmin(membershipLevel(principal, project.organizationId));
  const row = await deps.units.run(async (unit) => {
    const { client } = unit;
    const replaced = await replaceProjectToken(client, project.id);
    if (!replaced) throw notFound();
    await recordActivity(client, tokenActivity(principal, replaced.project, 'api_token', replaced.oldToken, replaced.project.api_token));
    await deps.bus.publish(unit, { kind: 'project', projectId: project.id });
    return replaced.project;
  });
  return toProject(row);
}

/**
 * `PATCH /api/projects/{id}/rotate_secret_token/`: a new secret token, in clear in this answer only;
 * the old one is refused at once (PostHog keeps it as a backup until told to delete it). Admins and owners.
 */
export async function rotateSecretToken(deps: AccountsDeps, principal: Principal, project: ProjectRef): Promise<Project> {
  requireProjectAdmin(membershipLevel(principal, project.organizationId));
  const rotated = await deps.units.run(async (unit) => {
    const { client } = unit;
    const replaced = await replaceSecretToken(client, project.id);
    if (!replaced) throw notFound();
    // Masks only: a secret is never written anywhere in clear.
    await recordActivity(client, tokenActivity(principal, replaced.project, 'secret_api_token', replaced.oldMask, replaced.project.secret_token_mask));
    await deps.bus.publish(unit, { kind: 'project', projectId: project.id });
    return replaced;
  });
  return toProject(rotated.project, rotated.secretToken);
}
