import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { PaginationQuery, pageOf, paginated } from '../../kernel/http/pagination.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { paginatedOf } from '../../kernel/http/pagination.ts';
import { resolveOrganization } from '../organizations/service.ts';
import { CreateProjectBody, Project, ProjectParams, UpdateProjectBody } from './schemas.ts';
import { createProject, deleteProject, getProject, listOrganizationProjects, listProjects, resetProjectToken, rotateSecretToken, updateProject } from './service.ts';

const tags = ['platform'];
const ProjectList = paginatedOf(Project);
const CreatedProject = Type.Object(Project.properties, {
  description: 'The new project; `secret_api_token` is in clear here and never again.',
});
const RotatedProject = Type.Object(Project.properties, {
  description: 'The project with its new secret token in clear, here and never again.',
});

/**
 * Project routes use the `project_id` parameter, so the auth hook resolves `@current`, answers
 * 404 for unknown ids and 403 for projects the key may not reach, and sets `request.project`.
 */
export function projectRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/projects',
      {
        config: { scope: 'project:read' },
        schema: {
          tags,
          summary: 'List the projects the key may reach',
          querystring: PaginationQuery,
          response: { 200: ProjectList },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const { count, results } = await listProjects(deps, request.principal, page);
        return paginated(request, page, count, results);
      },
    );

    app.post(
      '/api/projects',
      {
        config: { scope: 'project:write' },
        schema: {
          tags,
          summary: "Create a project in the body's `organization`, else the caller's current organization (admins and owners)",
          body: CreateProjectBody,
          response: { 201: CreatedProject },
        },
      },
      async (request, reply) => {
        const project = await createProject(deps, request.principal, request.body);
        return reply.code(201).send(project);
      },
    );

    app.get(
      '/api/organizations/:organization_id/projects',
      {
        config: { scope: 'project:read' },
        schema: {
          tags,
          summary: "List the organization's projects the key may reach",
          params: OrganizationParams,
          querystring: PaginationQuery,
          response: { 200: ProjectList },
        },
      },
      async (request) => {
        const organization = await resolveOrganization(deps, request.principal, request.params.organization_id);
        const page = pageOf(request.query);
        const { count, results } = await listOrganizationProjects(deps, request.principal, organization.id, page);
        return paginated(request, page, count, results);
      },
    );

    app.post(
      '/api/organizations/:organization_id/projects',
      {
        config: { scope: 'project:write' },
        schema: {
          tags,
          summary: 'Create a project in this organization (admins and owners)',
          params: OrganizationParams,
          body: CreateProjectBody,
          response: { 201: CreatedProject },
        },
      },
      async (request, reply) => {
        const project = await createProject(deps, request.principal, request.body, request.params.organization_id);
        return reply.code(201).send(project);
      },
    );

    app.get(
      '/api/projects/:project_id',
      {
        config: { scope: 'project:read' },
        schema: {
          tags,
          summary: 'Retrieve a project by id, or `@current`',
          params: ProjectParams,
          response: { 200: Project },
        },
      },
      async (request) => getProject(deps, request.project),
    );

    app.patch(
      '/api/projects/:project_id',
      {
        config: { scope: 'project:write' },
        schema: {
          tags,
          summary: "Update a project's name or time zone",
          params: ProjectParams,
          body: UpdateProjectBody,
          response: { 200: Project },
        },
      },
      async (request) => updateProject(deps, request.project, request.body),
    );

    app.patch(
      '/api/projects/:project_id/reset_token',
      {
        config: { scope: 'project:write' },
        schema: {
          tags,
          summary: 'Give the project a new public project token (`phc_…`); the old one is refused from now on (admins and owners)',
          params: ProjectParams,
          response: { 200: Project },
        },
      },
      async (request) => resetProjectToken(deps, request.principal, request.project),
    );

    app.patch(
      '/api/projects/:project_id/rotate_secret_token',
      {
        config: { scope: 'project:write' },
        schema: {
          tags,
          summary: 'Give the project a new secret token (`phs_…`), answered in clear once; the old one is refused from now on (admins and owners)',
          params: ProjectParams,
          response: { 200: RotatedProject },
        },
      },
      async (request) => rotateSecretToken(deps, request.principal, request.project),
    );

    app.delete(
      '/api/projects/:project_id',
      {
        config: { scope: 'project:write' },
        schema: {
          tags,
          summary: 'Delete a project and everything in it (organization admins and owners)',
          params: ProjectParams,
          response: { 204: Type.Null({ description: 'Deleted.' }) },
        },
      },
      async (request, reply) => {
        await deleteProject(deps, request.principal, request.project);
        return reply.code(204).send(null);
      },
    );
  };
}
