import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { listPage, paginatedOf, PaginationQuery } from '../../kernel/http/pagination.ts';
import { CreatedPersonalApiKey, CreatePersonalApiKeyBody, PersonalApiKey, PersonalApiKeyParams } from './schemas.ts';
import { createPersonalApiKey, currentPersonalApiKey, deletePersonalApiKey, getPersonalApiKey, listPersonalApiKeys } from './service.ts';

const tags = ['platform'];
const PersonalApiKeyList = paginatedOf(PersonalApiKey);

export function personalApiKeyRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/personal_api_keys',
      {
        config: { scope: 'user:read', account: true },
        schema: {
          tags,
          summary: "List the caller's personal API keys (masked; the value is never shown again)",
          querystring: PaginationQuery,
          response: { 200: PersonalApiKeyList },
        },
      },
      async (request) => {
        return listPage(request, request.query, (page) => listPersonalApiKeys(deps, request.principal, page));
      },
    );

    app.post(
      '/api/personal_api_keys',
      {
        config: { scope: '*', account: true },
        schema: {
          tags,
          summary: 'Create a personal API key; its `value` is in this response only',
          body: CreatePersonalApiKeyBody,
          response: { 201: CreatedPersonalApiKey },
        },
      },
      async (request, reply) => {
        const key = await createPersonalApiKey(deps, request.principal, request.body);
        return reply.code(201).send(key);
      },
    );

    app.get(
      '/api/personal_api_keys/@current',
      {
        // No scope: any valid key may read itself (what PostHog's tools call to learn what a key may do).
        config: { account: true },
        schema: {
          tags,
          summary: 'The key this request is authenticated with (masked), whatever its scopes; 404 for a console session',
          response: { 200: PersonalApiKey },
        },
      },
      async (request) => currentPersonalApiKey(deps, request.principal),
    );

    app.get(
      '/api/personal_api_keys/:id',
      {
        config: { scope: 'user:read', account: true },
        schema: {
          tags,
          summary: 'Retrieve one of the caller\'s personal API keys (masked)',
          params: PersonalApiKeyParams,
          response: { 200: PersonalApiKey },
        },
      },
      async (request) => getPersonalApiKey(deps, request.principal, request.params.id),
    );

    app.delete(
      '/api/personal_api_keys/:id',
      {
        config: { scope: '*', account: true },
        schema: {
          tags,
          summary: 'Revoke one of the caller\'s personal API keys; it fails authentication at once',
          params: PersonalApiKeyParams,
          response: { 204: Type.Null({ description: 'Deleted.' }) },
        },
      },
      async (request, reply) => {
        await deletePersonalApiKey(deps, request.principal, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
