import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AccountsDeps } from '../deps.ts';
import { listPage, PaginationQuery } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { CreateOrganizationBody, Organization, OrganizationList, OrganizationParams } from './schemas.ts';
import { createOrganization, getOrganization, listOrganizations } from './service.ts';

const route = routeOptions(['platform']);

export function organizationRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/organizations',
      route.scoped('organization:read', "List the caller's organizations (narrowed by the key's scoping)", {
        querystring: PaginationQuery, response: { 200: OrganizationList },
      }),
      async (request) => listPage(request, request.query, (page) => listOrganizations(deps, request.principal, page)),
    );

    app.post(
      '/api/organizations',
      route.scoped('organization:write', 'Create an organization; the caller becomes its owner. The current organization does not change.', {
        body: CreateOrganizationBody, response: { 201: Organization },
      }),
      async (request, reply) => reply.code(201).send(await createOrganization(deps, request.principal, request.body)),
    );

    app.get(
      '/api/organizations/:organization_id',
      route.scoped('organization:read', 'Retrieve an organization by id, or `@current`', { params: OrganizationParams, response: { 200: Organization } }),
      async (request) => getOrganization(deps, request.principal, request.params.organization_id),
    );
  };
}
