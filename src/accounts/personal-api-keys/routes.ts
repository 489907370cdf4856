import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { listPage, paginatedOf, PaginationQuery } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { CreatedPersonalApiKey, CreatePersonalApiKeyBody, PersonalApiKey, PersonalApiKeyParams } from './schemas.ts';
import { createPersonalApiKey, currentPersonalApiKey, deletePersonalApiKey, getPersonalApiKey, listPersonalApiKeys } from './service.ts';

/** Every route here acts on the caller's own account. */
const route = routeOptions(['platform'], { account: true });
const PersonalApiKeyList = paginatedOf(PersonalApiKey);

export function personalApiKeyRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/personal_api_keys',
      route.scoped('user:read', "List the caller's personal API keys (masked; the value is never shown again)", {
        querystring: PaginationQuery, response: { 200: PersonalApiKeyList },
      }),
      async (request) => listPage(request, request.query, (page) => listPersonalApiKeys(deps, request.principal, page)),
    );

    app.post(
      '/api/personal_api_keys',
      route.scoped('*', 'Create a personal API key; its `value` is in this response only', {
        body: CreatePersonalApiKeyBody, response: { 201: CreatedPersonalApiKey },
      }),
      async (request, reply) => reply.code(201).send(await createPersonalApiKey(deps, request.principal, request.body)),
    );

    app.get(
      '/api/personal_api_keys/@current',
      // No scope: any valid key may read itself (what PostHog's tools call to learn what a key may do).
      route.scoped(undefined, 'The key this request is authenticated with (masked), whatever its scopes; 404 for a console session', {
        response: { 200: PersonalApiKey },
      }),
      async (request) => currentPersonalApiKey(deps, request.principal),
    );

    app.get(
      '/api/personal_api_keys/:id',
      route.scoped('user:read', "Retrieve one of the caller's personal API keys (masked)", { params: PersonalApiKeyParams, response: { 200: PersonalApiKey } }),
      async (request) => getPersonalApiKey(deps, request.principal, request.params.id),
    );

    app.delete(
      '/api/personal_api_keys/:id',
      route.scoped('*', "Revoke one of the caller's personal API keys; it fails authentication at once", {
        params: PersonalApiKeyParams, response: { 204: Type.Null({ description: 'Deleted.' }) },
      }),
      async (request, reply) => {
        await deletePersonalApiKey(deps, request.principal, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
