import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../../kernel/deps.ts';
import { refuseOtherMethodsOn } from '../../kernel/http/method-not-allowed.ts';
import { listPage } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { itemActivityRoute, projectActivityRoute } from '../../accounts/activity/routes.ts';
import { NoBody } from '../taxonomy/http.ts';
import { DEFINITION_ACTIVITY_SCOPE } from './activity.ts';
import { decodeDefinitionListQuery } from './list-query.ts';
import { presentDefinition } from './present.ts';
import {
  CreateDefinitionBody,
  DefinitionListQuery,
  DefinitionMetrics,
  DefinitionParams,
  DefinitionVolume,
  EventDefinition,
  EventDefinitionList,
  ProjectParams,
  UpdateDefinitionBody,
  VolumeQuery,
} from './schemas.ts';
import { createDefinition, definitionMetrics, definitionVolume, deleteDefinitionById, getDefinition, getDefinitionByName, updateDefinitionById } from './service.ts';
import { listDefinitions } from './store.ts';

const route = routeOptions(['event_definitions']);

/** /api/projects/:project_id/event_definitions */
export function eventDefinitionRoutes(deps: Kernel) {
  const { pool, units } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, {
      '/': ['GET', 'POST'], '/:id': ['GET', 'PATCH', 'PUT', 'DELETE'], '/:id/metrics': ['GET'], '/:id/volume': ['GET'], '/activity': ['GET'],
      '/:id/activity': ['GET'], '/by_name': ['GET'],
    });

    projectActivityRoute(root, pool, { scope: DEFINITION_ACTIVITY_SCOPE, tags: route.tags, summary: 'Activity of every event definition in the project, newest first', params: ProjectParams });

    itemActivityRoute(root, pool, {
      scope: DEFINITION_ACTIVITY_SCOPE,
      tags: route.tags,
      summary: 'Activity of one event definition',
      params: DefinitionParams,
      itemOf: async (request) => {
        const definition = await getDefinition(pool, request.project.id, request.params.id);
        return definition.id;
      },
    });

    app.get(
      '/:id/volume',
      route.scoped('event_definition:read', 'Events of this name per UTC day (Bellwether; the console draws it). PostHog has no such endpoint.', {
        params: DefinitionParams, querystring: VolumeQuery, response: { 200: DefinitionVolume },
      }),
      async (request) => definitionVolume(pool, request.project.id, request.params.id, request.query.days ?? 30),
    );

    app.get(
      '/',
      route.scoped('event_definition:read', 'List event definitions', {
        description:
          'Default order: `last_seen_at::date DESC NULLS LAST, name ASC` (byte-wise). `search` terms are ANDed and matched literally (`%` and `_` are not wildcards).',
        params: ProjectParams, querystring: DefinitionListQuery, response: { 200: EventDefinitionList },
      }),
      async (request) => {
        const filter = decodeDefinitionListQuery(request.query);
        return listPage(request, request.query, (page) => listDefinitions(pool, request.project.id, filter, page), presentDefinition);
      },
    );

    app.post(
      '/',
      route.scoped('event_definition:write', 'Create an event definition: 201 with no body and a Location header', {
        params: ProjectParams, body: CreateDefinitionBody, response: { 201: NoBody("No body; `Location` holds the new definition's URL.") },
      }),
      async (request, reply) => {
        const id = await createDefinition(units, request.project, request.principal.user.id, request.body);
        const location = `${request.protocol}://${request.host}/api/projects/${request.project.id}/event_definitions/${id}/`;
        return reply.code(201).header('location', location).send();
      },
    );

    app.get(
      '/by_name',
      route.scoped('event_definition:read', 'Retrieve the event definition with exactly this name', {
        params: ProjectParams,
        querystring: Type.Object({ name: Type.Optional(Type.String({ maxLength: 400, description: 'the exact event name (required)' })) }),
        response: { 200: EventDefinition },
      }),
      async (request) => getDefinitionByName(pool, request.project.id, request.query.name),
    );

    app.get(
      '/:id',
      route.scoped('event_definition:read', 'Retrieve an event definition', { params: DefinitionParams, response: { 200: EventDefinition } }),
      async (request) => getDefinition(pool, request.project.id, request.params.id),
    );

    // PUT is DRF's full update; every writable field is optional (name is read-only), so it writes what PATCH writes.
    for (const method of ['PATCH', 'PUT'] as const) app.route({
      method,
      url: '/:id',
      ...route.scoped(
        'event_definition:write',
        method === 'PATCH' ? 'Update an event definition (name is read-only)' : 'Update an event definition in full (DRF): fields left out keep their values',
        { params: DefinitionParams, body: UpdateDefinitionBody, response: { 200: EventDefinition } },
      ),
      handler: async (request) => updateDefinitionById(units, request.project, request.params.id, request.principal.user.id, request.body),
    });

    app.delete(
      '/:id',
      route.scoped('event_definition:write', 'Delete an event definition (hard delete; ingestion recreates it when the event arrives again)', {
        params: DefinitionParams, response: { 204: NoBody('Deleted.') },
      }),
      async (request, reply) => {
        await deleteDefinitionById(units, request.project.id, request.params.id, request.principal.user.id);
        return reply.code(204).send();
      },
    );

    app.get(
      '/:id/metrics',
      route.scoped('event_definition:read', 'Usage figures of an event definition, from the stored events', {
        params: DefinitionParams, response: { 200: DefinitionMetrics },
      }),
      async (request) => definitionMetrics(pool, request.project.id, request.params.id),
    );
  };
}
