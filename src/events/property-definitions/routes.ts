import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../../kernel/deps.ts';
import { refuseOtherMethodsOn } from '../../kernel/http/method-not-allowed.ts';
import { listPage } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { NoBody } from '../taxonomy/http.ts';
import { decodePropertyListQuery } from './list-query.ts';
import { presentProperty } from './present.ts';
import {
  ProjectParams,
  PropertyDefinition,
  PropertyDefinitionList,
  PropertyDefinitionListQuery,
  PropertyDefinitionParams,
  UpdatePropertyDefinitionBody,
} from './schemas.ts';
import { deletePropertyById, getProperty, updatePropertyById } from './service.ts';
import { listProperties } from './store.ts';

const route = routeOptions(['property_definitions']);

/** /api/projects/:project_id/property_definitions */
export function propertyDefinitionRoutes(deps: Kernel) {
  const { pool, units } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/': ['GET'], '/:id': ['GET', 'PATCH', 'DELETE'] });

    app.get(
      '/',
      route.scoped('property_definition:read', 'List property definitions (event properties unless `type` says person or group)', {
        description:
          'Ordered by name (byte-wise); with `event_names`, properties seen with those events come first. `search` terms are ANDed and matched literally.',
        params: ProjectParams, querystring: PropertyDefinitionListQuery, response: { 200: PropertyDefinitionList },
      }),
      async (request) => {
        const filter = decodePropertyListQuery(request.query);
        return listPage(request, request.query, (page) => listProperties(pool, request.project.id, filter, page), presentProperty);
      },
    );

    app.get(
      '/:id',
      route.scoped('property_definition:read', 'Retrieve a property definition', { params: PropertyDefinitionParams, response: { 200: PropertyDefinition } }),
      async (request) => getProperty(pool, request.project.id, request.params.id),
    );

    app.patch(
      '/:id',
      route.scoped('property_definition:write', 'Update a property definition (description, tags, property_type, verified, hidden)', {
        params: PropertyDefinitionParams, body: UpdatePropertyDefinitionBody, response: { 200: PropertyDefinition },
      }),
      async (request) => updatePropertyById(units, request.project.id, request.params.id, request.principal.user.id, request.body),
    );

    app.delete(
      '/:id',
      route.scoped('property_definition:write', 'Delete a property definition', { params: PropertyDefinitionParams, response: { 204: NoBody('Deleted.') } }),
      async (request, reply) => {
        await deletePropertyById(units, request.project.id, request.params.id, request.principal.user.id);
        return reply.code(204).send();
      },
    );
  };
}
