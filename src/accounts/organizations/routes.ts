import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AccountsDeps } from '../deps.ts';
import { PaginationQuery, pageOf, paginated } from '../../kernel/http/pagination.ts';
import { CreateOrganizationBody, Organization, OrganizationList, OrganizationParams } from './schemas.ts';
import { createOrganization, getOrganization, listOrganizations } from './service.ts';

const tags = ['platform'];

export function organizationRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/organizations',
      {
        config: { scope: 'organization:read' },
        schema: {
          tags,
          summary: "List the caller's organizations (narrowed by the key's scoping)",
          querystring: PaginationQuery,
          response: { 200: OrganizationList },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const { count, results } = await listOrganizations(deps, request.principal, page);
        return paginated(request, page, count, results);
      },
    );

    app.post(
      '/api/organizations',
      {
        config: { scope: 'organization:write' },
        schema: {
          tags,
          summary: 'Create an organization; the caller becomes its owner. The current organization does not change.',
          body: CreateOrganizationBody,
          response: { 201: Organization },
        },
      },
      async (request, reply) => {
        const organization = await createOrganization(deps, request.principal, request.body);
        return reply.code(201).send(organization);
      },
    );

    app.get(
      '/api/organizations/:organization_id',
      {
        config: { scope: 'organization:read' },
        schema: {
          tags,
          summary: 'Retrieve an organization by id, or `@current`',
          params: OrganizationParams,
          response: { 200: Organization },
        },
      },
      async (request) => getOrganization(deps, request.principal, request.params.organization_id),
    );
  };
}
