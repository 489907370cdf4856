import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FlagDeps } from './deps.ts';
import { itemActivityRoute, projectActivityRoute } from '../accounts/activity/routes.ts';
import { membershipLevel } from '../accounts/auth/principal.ts';
import { JSON_CONTENT_TYPE, sendJson } from '../kernel/http/send-json.ts';
import { NoBody } from '../events/taxonomy/http.ts';
import { toUserSummary } from '../accounts/users/user-summary.ts';
import { notFound, requiredField } from '../kernel/errors.ts';
import { refuseOtherMethodsOn } from '../kernel/http/method-not-allowed.ts';
import { pageLinks, pageOf } from '../kernel/http/pagination.ts';
import { FLAG_ACTIVITY_SCOPE } from './activity.ts';
import { parseIfMatch } from './concurrency.ts';
import { createFlag } from './create.ts';
import { listProjectFlags } from './list.ts';
import { flagJson, renderFlag, type FlagViewer } from './present.ts';
import { FlagFullBody, FlagListQuery, FlagListResponse, FlagParams, FlagResponse, FlagWriteBody, ProjectParams } from './schemas.ts';
import { updateFlagById } from './update.ts';

const INT32_MAX = 2147483647;
const TAGS = ['feature_flags'];

/** The flag id a path names, or null: one that is not a positive 32-bit integer names no flag. */
function flagIdIn(raw: string): number | null {
  return /^\d{1,10}$/.test(raw) && Number(raw) <= INT32_MAX ? Number(raw) : null;
}

export function parseFlagId(raw: string): number {
  const id = flagIdIn(raw);
  if (id === null) throw notFound();
  return id;
}

export function viewerOf(request: FastifyRequest): FlagViewer {
  return {
    userId: request.principal.user.id,
    organizationLevel: membershipLevel(request.principal, request.project.organizationId),
  };
}

/**
 * The list query when it holds nothing but `limit` (1…INT32_MAX) and `offset` (0…INT32_MAX) as
 * decimal integers, as the schema's validation would take them; else null.
 */
function plainPageQuery(raw: unknown): FlagListQuery | null {
  if (raw === null || typeof raw !== 'object') return null;
  const query: FlagListQuery = {};
  for (const [name, value] of Object.entries(raw)) {
    if ((name !== 'limit' && name !== 'offset') || typeof value !== 'string' || !/^\d{1,10}$/.test(value)) return null;
    const number = Number(value);
    if (number > INT32_MAX || (name === 'limit' && number < 1)) return null;
    query[name] = number;
  }
  return query;
}

const etag = (version: number) => `"${version}"`;

export function featureFlagRoutes(deps: FlagDeps) {
  const { pool, flagCache } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/': ['GET', 'POST'], '/:id': ['GET', 'PATCH', 'PUT', 'DELETE'] });

    const listJson = async (request: FastifyRequest, query: FlagListQuery): Promise<string> => {
      const page = pageOf(query);
      const now = new Date();
      const { count, flags } = listProjectFlags(await flagCache.project(request.project.id, request.arrivedAt), query, page, now);
      const viewer = viewerOf(request);
      const links = pageLinks(request, page, count);
      const results = flags.map((flag) => flagJson(flag, viewer, now)).join(',');
      return `{"count":${count},"next":${JSON.stringify(links.next)},"previous":${JSON.stringify(links.previous)},"results":[${results}]}`;
    };
    // A page with no filter (at most `limit` and `offset`, plain integers in range) is answered from
    // the route's onRequest hook, after authentication (kernel/http/early-answer.ts); any other query
    // is left to the route's validation and handler.
    const listEarly = root.earlyAnswers.hooks(async (request, reply) => {
      const query = plainPageQuery(request.query);
      if (query === null) return null;
      const payload = await listJson(request, query);
      reply.header('content-type', JSON_CONTENT_TYPE);
      return { status: 200, payload };
    });
    app.get(
      '/',
      {
        ...listEarly,
        config: { scope: 'feature_flag:read' },
        schema: { tags: TAGS, summary: 'List feature flags', params: ProjectParams, querystring: FlagListQuery, response: { 200: FlagListResponse } },
      },
      async (request, reply) => sendJson(reply, await listJson(request, request.query)),
    );

    app.post(
      '/',
      {
        config: { scope: 'feature_flag:write' },
        schema: { tags: TAGS, summary: 'Create a feature flag', params: ProjectParams, body: FlagFullBody, response: { 201: FlagResponse } },
      },
      async (request, reply) => {
        const flag = await createFlag(deps, request.project.id, toUserSummary(request.principal.user), request.body);
        return sendJson(reply.code(201).header('etag', etag(flag.version)), flagJson(renderFlag(flag), viewerOf(request), new Date()));
      },
    );

    projectActivityRoute(root, pool, { scope: FLAG_ACTIVITY_SCOPE, tags: TAGS, summary: 'Activity of every flag in the project', params: ProjectParams });

    // A flag found is answered from the route's onRequest hook, after authentication
    // (kernel/http/early-answer.ts): the params are plain strings, so no validation is skipped, only
    // Fastify's later lifecycle. Anything else (not found, HEAD) is left to the handler.
    const retrieveEarly = root.earlyAnswers.hooks(async (request, reply) => {
      const id = flagIdIn((request.params as { id: string }).id);
      if (id === null) return null;
      const flag = (await flagCache.project(request.project.id, request.arrivedAt)).get(id);
      if (!flag) return null;
      reply.header('etag', etag(flag.record.version)).header('content-type', JSON_CONTENT_TYPE);
      return { status: 200, payload: flagJson(flag, viewerOf(request), new Date()) };
    });
    app.get(
      '/:id',
      {
        ...retrieveEarly,
        config: { scope: 'feature_flag:read' },
        schema: { tags: TAGS, summary: 'Retrieve a feature flag (deleted flags too)', params: FlagParams, response: { 200: FlagResponse } },
      },
      async (request, reply) => {
        const flag = (await flagCache.project(request.project.id, request.arrivedAt)).get(parseFlagId(request.params.id));
        if (!flag) throw notFound();
        return sendJson(reply.header('etag', etag(flag.record.version)), flagJson(flag, viewerOf(request), new Date()));
      },
    );

    for (const method of ['PATCH', 'PUT'] as const) app.route({
      method,
      url: '/:id',
      config: { scope: 'feature_flag:write' },
      schema: {
        tags: TAGS,
        summary:
          method === 'PATCH'
            ? 'Update a feature flag; `deleted: true` soft-deletes, `deleted: false` restores'
            : 'Update a feature flag in full (DRF): `key` is required; fields left out keep their values',
        description: 'Send `If-Match: "<version>"` to refuse the change (409) when someone else changed the flag first.',
        params: FlagParams,
        headers: Type.Object({ 'if-match': Type.Optional(Type.String()) }),
        body: method === 'PUT' ? FlagFullBody : FlagWriteBody,
        response: { 200: FlagResponse },
      },
      handler: async (request, reply) => {
        if (method === 'PUT' && request.body.key === undefined) throw requiredField('key');
        const flagId = parseFlagId(request.params.id);
        const flag = await updateFlagById(deps, {
          projectId: request.project.id,
          flagId,
          viewer: viewerOf(request),
          actor: toUserSummary(request.principal.user),
          body: request.body,
          ifMatch: parseIfMatch(request.headers['if-match']),
          gates: deps.gates,
          httpMethod: method,
        });
        return sendJson(reply.header('etag', etag(flag.version)), flagJson(renderFlag(flag), viewerOf(request), new Date()));
      },
    });

    app.delete(
      '/:id',
      {
        config: { scope: 'feature_flag:write' },
        schema: {
          tags: TAGS,
          summary: 'Never deletes: answers 405 with no body. Soft-delete with PATCH {"deleted": true}.',
          params: FlagParams,
          response: { 405: NoBody('Always: flags are never deleted (`Allow` lists the methods offered). Soft-delete with PATCH `{"deleted": true}`.') },
        },
      },
      async (_request, reply) => reply.code(405).header('allow', 'GET, PATCH, HEAD, OPTIONS').send(),
    );

    itemActivityRoute(root, pool, {
      scope: FLAG_ACTIVITY_SCOPE,
      tags: TAGS,
      summary: 'Activity of one flag',
      params: FlagParams,
      itemOf: async (request) => {
        const flagId = parseFlagId(request.params.id);
        if (!(await flagCache.project(request.project.id, request.arrivedAt)).get(flagId)) throw notFound();
        return String(flagId);
      },
    });
  };
}
