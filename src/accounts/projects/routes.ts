import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { listPage, PaginationQuery } from '../../kernel/http/pagination.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { paginatedOf } from '../../kernel/http/pagination.ts';
import { resolveOrganization } from '../organizations/service.ts';
import type { Principal } from '../auth/principal.ts';
import { registerInProject } from '../../kernel/http/project-scope.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import {
  CreateEnvironmentBody,
  CreateProjectBody,
  EnvironmentParams,
  OrganizationProjectParams,
  Project,
  ProjectParams,
  UpdateEnvironmentBody,
  UpdateProjectBody,
} from './schemas.ts';
import {
  createEnvironment,
  createProject,
  deleteEnvironment,
  deleteProject,
  getEnvironment,
  getProject,
  listEnvironments,
  listOrganizationProjects,
  listProjects,
  resetProjectToken,
  rotateSecretToken,
  updateEnvironment,
  updateProject,
} from './service.ts';

const route = routeOptions(['platform']);
const ProjectList = paginatedOf(Project);
const CreatedProject = Type.Object(Project.properties, {
  description: 'The new project; `secret_api_token` is in clear here and never again.',
});
const RotatedProject = Type.Object(Project.properties, {
  description: 'The project with its new secret token in clear, here and never again.',
});
const Deleted = Type.Null({ description: 'Deleted.' });

/** Token resets, under every project prefix (`/api/projects/{id}/…`, `/api/environments/{id}/…`): they act on one environment. */
function tokenRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.patch(
      '/reset_token',
      route.scoped('project:write', 'Give the environment a new public project token (`phc_…`); the old one is refused from now on (admins and owners)', {
        params: ProjectParams, response: { 200: Project },
      }),
      async (request) => resetProjectToken(deps, request.principal, request.project),
    );
    app.patch(
      '/rotate_secret_token',
      route.scoped(
        'project:write',
        'Give the environment a new secret token (`phs_…`), answered in clear once; the old one is refused from now on (admins and owners)',
        { params: ProjectParams, response: { 200: RotatedProject } },
      ),
      async (request) => rotateSecretToken(deps, request.principal, request.project),
    );
  };
}

/** The organization a project path names (`/api/organizations/{id}/projects/{id}/`), resolved; undefined on `/api/projects/{id}/`. */
function organizationInPath(params: unknown, principal: Principal): string | undefined {
  const raw = (params as { organization_id?: string }).organization_id;
  if (raw === undefined) return undefined;
  if (raw === '@current') return principal.user.current_organization_id ?? '';
  return raw.toLowerCase();
}

/**
 * Project routes use the `project_id` parameter, so the auth hook resolves `@current`, answers
 * 404 for unknown ids and 403 for projects the key may not reach, and sets `request.project`.
 */
export function projectRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/projects',
      route.scoped('project:read', 'List the projects the key may reach', { querystring: PaginationQuery, response: { 200: ProjectList } }),
      async (request) => listPage(request, request.query, (page) => listProjects(deps, request.principal, page)),
    );

    app.post(
      '/api/projects',
      route.scoped('project:write', "Create a project in the body's `organization`, else the caller's current organization (admins and owners)", {
        body: CreateProjectBody, response: { 201: CreatedProject },
      }),
      async (request, reply) => reply.code(201).send(await createProject(deps, request.principal, request.body)),
    );

    app.get(
      '/api/organizations/:organization_id/projects',
      route.scoped('project:read', "List the organization's projects the key may reach", {
        params: OrganizationParams, querystring: PaginationQuery, response: { 200: ProjectList },
      }),
      async (request) => {
        const organization = await resolveOrganization(deps, request.principal, request.params.organization_id);
        return listPage(request, request.query, (page) => listOrganizationProjects(deps, request.principal, organization.id, page));
      },
    );

    app.post(
      '/api/organizations/:organization_id/projects',
      route.scoped('project:write', 'Create a project in this organization (admins and owners)', {
        params: OrganizationParams, body: CreateProjectBody, response: { 201: CreatedProject },
      }),
      async (request, reply) => reply.code(201).send(await createProject(deps, request.principal, request.body, request.params.organization_id)),
    );

    // A project by its id (its first environment's), under /api/projects/ and its organization.
    const projectPaths = [
      { url: '/api/projects/:project_id', params: ProjectParams },
      { url: '/api/organizations/:organization_id/projects/:project_id', params: OrganizationProjectParams },
    ] as const;
    for (const { url, params } of projectPaths) {
      const organizationOf = (request: { params: unknown; principal: Principal }) => organizationInPath(request.params, request.principal);
      app.get(
        url,
        route.scoped('project:read', 'Retrieve a project by id, or `@current`', { params, response: { 200: Project } }),
        async (request) => getProject(deps, request.project, organizationOf(request)),
      );
      app.patch(
        url,
        route.scoped('project:write', "Rename a project, or change its first environment's time zone (members)", {
          params, body: UpdateProjectBody, response: { 200: Project },
        }),
        async (request) => updateProject(deps, request.project, request.body, organizationOf(request)),
      );
      app.delete(
        url,
        route.scoped('project:write', 'Delete a project, every environment of it and everything in them (organization admins and owners)', {
          params, response: { 204: Deleted },
        }),
        async (request, reply) => {
          await deleteProject(deps, request.principal, request.project, organizationOf(request));
          return reply.code(204).send(null);
        },
      );
    }

    app.get(
      '/api/projects/:project_id/environments',
      route.scoped('project:read', 'List the environments of the project (the key may be scoped to some of them)', {
        params: ProjectParams, querystring: PaginationQuery, response: { 200: ProjectList },
      }),
      async (request) => listPage(request, request.query, (page) => listEnvironments(deps, request.principal, request.project, page)),
    );

    app.post(
      '/api/projects/:project_id/environments',
      route.scoped('project:write', 'Create an environment in the project, with tokens of its own (admins and owners)', {
        params: ProjectParams, body: CreateEnvironmentBody, response: { 201: CreatedProject },
      }),
      async (request, reply) => reply.code(201).send(await createEnvironment(deps, request.principal, request.project, request.body)),
    );

    app.get(
      '/api/environments/:project_id',
      route.scoped('project:read', 'Retrieve an environment by id, or `@current`', { params: EnvironmentParams, response: { 200: Project } }),
      async (request) => getEnvironment(deps, request.project),
    );

    app.patch(
      '/api/environments/:project_id',
      route.scoped('project:write', "Update an environment's name, time zone or colour (members)", {
        params: EnvironmentParams, body: UpdateEnvironmentBody, response: { 200: Project },
      }),
      async (request) => updateEnvironment(deps, request.project, request.body),
    );

    app.delete(
      '/api/environments/:project_id',
      route.scoped(
        'project:write',
        "Delete an environment and everything in it (organization admins and owners; a project's first environment goes only with the project)",
        { params: EnvironmentParams, response: { 204: Deleted } },
      ),
      async (request, reply) => {
        await deleteEnvironment(deps, request.principal, request.project);
        return reply.code(204).send(null);
      },
    );

    await registerInProject(instance, '', tokenRoutes(deps));
  };
}
