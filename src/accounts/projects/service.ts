import type { AccountsDeps } from '../deps.ts';
import { recordActivity } from '../activity/store.ts';
import { membershipLevel, type Principal, type ProjectRef } from '../auth/principal.ts';
import { notFound, organizationOutsideKey, permissionDenied, validationError } from '../../kernel/errors.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { MEMBERSHIP_LEVELS, projectDeleteRefusal } from '../members/levels.ts';
import { requireProjectAdmin } from '../members/rules.ts';
import { keyReach, keyReachesOrganization } from '../organizations/reach.ts';
import { cleanName, resolveOrganization, type ResolvedOrganization } from '../organizations/service.ts';
import { setCurrentProjectIfUnset } from '../users/store.ts';
import type { CreateEnvironmentBody, CreateProjectBody, Project, UpdateEnvironmentBody, UpdateProjectBody } from './schemas.ts';
import {
  deleteProject as deleteProjectRow,
  deleteProjectGroup,
  findProject,
  findProjectView,
  renameProjectGroup,
  insertProject,
  listReachableProjects,
  replaceProjectToken,
  replaceSecretToken,
  updateProject as updateProjectRow,
  type ProjectRow,
} from './store.ts';

const NAME_MAX_LENGTH = 200;
const FIRST_ENVIRONMENT_REFUSAL = "A project's first environment cannot be deleted on its own: delete the project instead.";

/** `secretToken` in clear only when the project was just created; otherwise its mask. */
function toProject(row: ProjectRow, secretToken?: string): Project {
  return {
    id: row.id,
    project_id: row.project_group_id,
    name: row.name,
    organization: row.organization_id,
    api_token: row.api_token,
    secret_api_token: secretToken ?? row.secret_token_mask,
    timezone: row.timezone,
    color: row.color,
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
  const { count, rows } = await listReachableProjects(deps.pool, keyReach(principal), { kind: 'projects' }, page);
  return { count, results: rows.map((row) => toProject(row)) };
}

/** `GET /api/organizations/{id}/projects/`: the organization's projects the key may reach (the organization is already resolved). */
export async function listOrganizationProjects(deps: AccountsDeps, principal: Principal, organizationId: string, page: Page) {
  const { count, rows } = await listReachableProjects(deps.pool, keyReach(principal), { kind: 'projects', organizationId }, page);
  return { count, results: rows.map((row) => toProject(row)) };
}

/**
 * `project` was resolved and access-checked by the auth hook as an environment; a project's id is
 * its first environment's, and any other environment's id names no project (404). `organization`,
 * when the path names one, must be the project's.
 */
export async function getProject(deps: AccountsDeps, project: ProjectRef, organization?: string): Promise<Project> {
  const row = await findProjectView(deps.pool, project.id);
  if (!row || (organization !== undefined && organization !== row.organization_id)) throw notFound();
  return toProject(row);
}

/** `GET /api/environments/{id}/`. */
export async function getEnvironment(deps: AccountsDeps, project: ProjectRef): Promise<Project> {
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

/**
 * Renames a project; its time zone is its first environment's. Any member may (PostHog's rule for
 * a project's update: membership for reading and updating, admin for deleting).
 */
export async function updateProject(deps: AccountsDeps, project: ProjectRef, body: UpdateProjectBody, organization?: string): Promise<Project> {
  await getProject(deps, project, organization);
  const name = body.name === undefined ? undefined : cleanName(body.name, 'name', NAME_MAX_LENGTH);
  const timezone = body.timezone === undefined ? undefined : cleanTimezone(body.timezone);
  if (name !== undefined || timezone !== undefined) {
    await deps.units.run(async (unit) => {
      if (name !== undefined) await renameProjectGroup(unit.client, project.id, name);
      if (timezone !== undefined) await updateProjectRow(unit.client, project.id, { timezone });
      await deps.bus.publish(unit, { kind: 'project', projectId: project.id });
    });
  }
  return getProject(deps, project);
}

/** `PATCH /api/environments/{id}/`: name, time zone, colour. Any member may, as for a project. */
export async function updateEnvironment(deps: AccountsDeps, project: ProjectRef, body: UpdateEnvironmentBody): Promise<Project> {
  const changes = {
    name: body.name === undefined ? undefined : cleanName(body.name, 'name', NAME_MAX_LENGTH),
    timezone: body.timezone === undefined ? undefined : cleanTimezone(body.timezone),
    color: body.color === undefined ? undefined : body.color === null ? null : body.color.toLowerCase(),
  };
  const row =
    changes.name === undefined && changes.timezone === undefined && changes.color === undefined
      ? await findProject(deps.pool, project.id)
      : await deps.units.run(async (unit) => {
          const updated = await updateProjectRow(unit.client, project.id, changes);
          await deps.bus.publish(unit, { kind: 'project', projectId: project.id });
          return updated;
        });
  if (!row) throw notFound();
  return toProject(row);
}

/** Deleting a project or an environment takes an admin of its organization. */
function requireProjectDeleter(principal: Principal, project: ProjectRef): void {
  const level = membershipLevel(principal, project.organizationId);
  const reason = projectDeleteRefusal(level === null ? null : MEMBERSHIP_LEVELS[level]);
  if (reason !== null) throw permissionDenied(reason);
}

/** Admins and owners only; every environment of the project, and everything in them, goes with it. */
export async function deleteProject(deps: AccountsDeps, principal: Principal, project: ProjectRef, organization?: string): Promise<void> {
  await getProject(deps, project, organization);
  requireProjectDeleter(principal, project);
  const deleted = await deps.units.run(async (unit) => {
    const { client } = unit;
    const gone = await deleteProjectGroup(client, project);
    await deps.bus.publish(unit, { kind: 'project', projectId: project.id });
    return gone;
  });
  if (!deleted) throw notFound();
}

/**
 * `DELETE /api/environments/{id}/`: admins and owners; everything in it goes with it. A project's
 * first environment carries the project's id, so it goes only with the project.
 */
export async function deleteEnvironment(deps: AccountsDeps, principal: Principal, project: ProjectRef): Promise<void> {
  requireProjectDeleter(principal, project);
  const row = await findProject(deps.pool, project.id);
  if (!row) throw notFound();
  if (row.project_group_id === row.id) throw validationError(FIRST_ENVIRONMENT_REFUSAL, null, 'first_environment');
  const deleted = await deps.units.run(async (unit) => {
    const gone = await deleteProjectRow(unit.client, project);
    await deps.bus.publish(unit, { kind: 'project', projectId: project.id });
    return gone;
  });
  if (!deleted) throw notFound();
}

/** `GET /api/projects/{id}/environments/`: the environments of the project that `project` belongs to, those the key reaches. */
export async function listEnvironments(deps: AccountsDeps, principal: Principal, project: ProjectRef, page: Page) {
  const row = await findProject(deps.pool, project.id);
  if (!row) throw notFound();
  const filter = { kind: 'environments' as const, projectGroupId: row.project_group_id };
  const { count, rows } = await listReachableProjects(deps.pool, keyReach(principal), filter, page);
  return { count, results: rows.map((each) => toProject(each)) };
}

/**
 * `POST /api/projects/{id}/environments/`: a new environment in the project `project` belongs to,
 * with tokens of its own (the secret in clear in this answer only). Admins and owners.
 */
export async function createEnvironment(
  deps: AccountsDeps,
  principal: Principal,
  project: ProjectRef,
  body: CreateEnvironmentBody,
): Promise<Project> {
  requireProjectAdmin(membershipLevel(principal, project.organizationId));
  const name = cleanName(body.name, 'name', NAME_MAX_LENGTH);
  const timezone = body.timezone === undefined ? undefined : cleanTimezone(body.timezone);
  const created = await deps.units.run(async (unit) => {
    const { client } = unit;
    const parent = await findProject(client, project.id);
    if (!parent) throw notFound();
    const result = await insertProject(client, {
      organizationId: parent.organization_id,
      name,
      projectGroupId: parent.project_group_id,
      color: body.color?.toLowerCase() ?? null,
    });
    const row = await updateProjectRow(client, result.project.id, { timezone: timezone ?? parent.timezone });
    await deps.bus.publish(unit, { kind: 'auth' });
    return { row: row ?? result.project, secretToken: result.secretToken };
  });
  return toProject(created.row, created.secretToken);
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
