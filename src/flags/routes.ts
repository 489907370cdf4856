import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FlagDeps } from './deps.ts';
import { itemActivityRoute, projectActivityRoute } from '../accounts/activity/routes.ts';
import { membershipLevel } from '../accounts/auth/principal.ts';
import { sendJson } from '../kernel/http/send-json.ts';
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

/** A path id that is not a positive 32-bit integer names no flag. */
export function parseFlagId(raw: string): number {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > INT32_MAX) throw notFound();
  return Number(raw);
}

export function viewerOf(request: FastifyRequest): FlagViewer {
  return {
    userId: request.principal.user.id,
    organizationLevel: membershipLevel(request.principal, request.project.organizationId),
  };
}

const etag = (version: number) => `"${version}"`;

export function featureFlagRoutes(deps: FlagDeps) {
  const { pool, flagCache } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/': ['GET', 'POST'], '/:id': ['GET', 'PATCH', 'PUT', 'DELETE'] });

    app.get(
      '/',
      {
        config: { scope: 'feature_flag:read' },
        schema: { tags: TAGS, summary: 'List feature flags', params: ProjectParams, querystring: FlagListQuery, response: { 200: FlagListResponse } },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const now = new Date();
        const { count, flags } = listProjectFlags(await flagCache.project(request.project.id, request.arrivedAt), request.query, page, now);
        const viewer = viewerOf(request);
        const links = pageLinks(request, page, count);
        const results = flags.map((flag) => flagJson(flag, viewer, now)).join(',');
        return sendJson(reply, `{"count":${count},"next":${JSON.stringify(links.next)},"previous":${JSON.stringify(links.previous)},"results":[${results}]}`);
      },
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

    app.get(
      '/:id',
      {
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
