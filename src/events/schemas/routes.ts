import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../../kernel/deps.ts';
import { refuseOtherMethods } from '../../kernel/http/method-not-allowed.ts';
import { listPage, pageOf, paginated } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { NoBody } from '../taxonomy/http.ts';
import {
  CreateEventSchemaBody,
  CreateGroupBody,
  EventSchema,
  EventSchemaList,
  EventSchemaListQuery,
  GroupListQuery,
  ItemParams,
  ProjectParams,
  PropertyGroup,
  PropertyGroupList,
  UpdateGroupBody,
} from './schemas.ts';
import {
  createEventSchema,
  createGroup,
  deleteEventSchemaById,
  deleteGroupById,
  eventDefinitionFilter,
  getEventSchema,
  getGroup,
  updateGroupById,
} from './service.ts';
import { listEventSchemas, listGroups } from './store.ts';

const groupRoute = routeOptions(['schema_property_groups']);
const schemaRoute = routeOptions(['event_schemas']);
const GROUPS = '/schema_property_groups';
const SCHEMAS = '/event_schemas';

/**
 * /api/projects/:project_id/schema_property_groups and /event_schemas. PostHog keeps these to its
 * own frontend (scope INTERNAL); here personal API keys use them with the event-definition scopes.
 */
export function schemaRoutes(deps: Kernel) {
  const { pool, units } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethods(root, GROUPS, ['GET', 'POST']);
    refuseOtherMethods(root, `${GROUPS}/:id`, ['GET', 'PATCH', 'DELETE']);
    refuseOtherMethods(root, SCHEMAS, ['GET', 'POST']);
    refuseOtherMethods(root, `${SCHEMAS}/:id`, ['GET', 'DELETE']);

    app.get(
      GROUPS,
      groupRoute.scoped('event_definition:read', 'List schema property groups (by name)', {
        params: ProjectParams, querystring: GroupListQuery, response: { 200: PropertyGroupList },
      }),
      async (request) => {
        return listPage(request, request.query, (page) => listGroups(pool, request.project.id, page));
      },
    );

    app.post(
      GROUPS,
      groupRoute.scoped('event_definition:write', 'Create a schema property group with its properties', {
        params: ProjectParams, body: CreateGroupBody, response: { 201: PropertyGroup },
      }),
      async (request, reply) => reply.code(201).send(await createGroup(units, request.project.id, request.principal.user.id, request.body)),
    );

    app.get(
      `${GROUPS}/:id`,
      groupRoute.scoped('event_definition:read', 'Retrieve a schema property group', { params: ItemParams, response: { 200: PropertyGroup } }),
      async (request) => getGroup(pool, request.project.id, request.params.id),
    );

    app.patch(
      `${GROUPS}/:id`,
      groupRoute.scoped('event_definition:write', 'Update a schema property group; `properties`, when sent, is the complete list', {
        params: ItemParams, body: UpdateGroupBody, response: { 200: PropertyGroup },
      }),
      async (request) => updateGroupById(units, request.project.id, request.params.id, request.body),
    );

    app.delete(
      `${GROUPS}/:id`,
      groupRoute.scoped('event_definition:write', 'Delete a schema property group (and its links to events)', {
        params: ItemParams, response: { 204: NoBody('Deleted.') },
      }),
      async (request, reply) => {
        await deleteGroupById(units, request.project.id, request.params.id);
        return reply.code(204).send();
      },
    );

    app.get(
      SCHEMAS,
      schemaRoute.scoped('event_definition:read', 'List event schemas (links of event definitions to property groups)', {
        params: ProjectParams, querystring: EventSchemaListQuery, response: { 200: EventSchemaList },
      }),
      async (request) => {
        const page = pageOf(request.query);
        const definition = eventDefinitionFilter(request.query.event_definition);
        const { count, results } = await listEventSchemas(pool, request.project.id, definition, page);
        return paginated(request, page, count, results);
      },
    );

    app.post(
      SCHEMAS,
      schemaRoute.scoped('event_definition:write', 'Add a property group to an event definition', {
        params: ProjectParams, body: CreateEventSchemaBody, response: { 201: EventSchema },
      }),
      async (request, reply) => reply.code(201).send(await createEventSchema(units, request.project.id, request.body)),
    );

    app.get(
      `${SCHEMAS}/:id`,
      schemaRoute.scoped('event_definition:read', 'Retrieve an event schema', { params: ItemParams, response: { 200: EventSchema } }),
      async (request) => getEventSchema(pool, request.project.id, request.params.id),
    );

    app.delete(
      `${SCHEMAS}/:id`,
      schemaRoute.scoped('event_definition:write', 'Remove a property group from an event definition', {
        params: ItemParams, response: { 204: NoBody('Deleted.') },
      }),
      async (request, reply) => {
        await deleteEventSchemaById(units, request.project.id, request.params.id);
        return reply.code(204).send();
      },
    );
  };
}
