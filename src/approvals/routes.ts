import { poolWrite } from '../db/unit-of-work.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { membershipLevel } from '../accounts/auth/principal.ts';
import type { FlagWriteDeps } from '../flags/write-deps.ts';
import { notFound, orNotFound, permissionDenied } from '../kernel/errors.ts';
import { refuseOtherMethods, refuseOtherMethodsOn } from '../kernel/http/method-not-allowed.ts';
import { pageOf, paginated } from '../kernel/http/pagination.ts';
import { approve, cancel, reject } from './decisions.ts';
import { changePolicy, createPolicy, removePolicy } from './policy-rules.ts';
import { presentChangeRequest, presentPolicy } from './present.ts';
import { ChangeRequestListResponse, ChangeRequestResponse, DecisionResponse, PolicyListResponse, PolicyResponse } from './schemas.ts';
import { expireOverdue, findChangeRequest, findPolicy, listChangeRequests, listPolicies } from './store.ts';

const TAGS = ['approvals'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ProjectParams = Type.Object({ project_id: Type.String() });
const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String() });
const Page = { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })), offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })) };
const FreeBody = Type.Record(Type.String(), Type.Unknown());
const ReasonBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: true });

const idOf = (raw: string) => {
  if (!UUID.test(raw)) throw notFound();
  return raw.toLowerCase();
};

function requireAdmin(request: FastifyRequest): void {
  const level = membershipLevel(request.principal, request.project.organizationId);
  if (level !== 'admin' && level !== 'owner') throw permissionDenied('Your organization access level is insufficient.');
}

/** `/api/projects/:project_id/approval_policies`: read for members, write for organization admins. */
export function policyRoutes(deps: FlagWriteDeps) {
  const { pool, units } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/': ['GET', 'POST'], '/:id': ['GET', 'PATCH', 'PUT', 'DELETE'] });
    app.get(
      '/',
      { config: { scope: 'approvals:read' }, schema: { tags: TAGS, summary: 'List approval policies', params: ProjectParams, querystring: Type.Object({ ...Page, action_key: Type.Optional(Type.String({ maxLength: 200 })), enabled: Type.Optional(Type.String({ maxLength: 10 })) }), response: { 200: PolicyListResponse } } },
      async (request) => {
        const page = pageOf(request.query);
        const { action_key, enabled } = request.query;
        const { count, rows } = await listPolicies(pool, request.project.id, { action_key, enabled: enabled === undefined ? undefined : enabled === 'true' }, page.limit, page.offset);
        return paginated(request, page, count, rows.map(presentPolicy));
      },
    );
    app.post('/', { config: { scope: 'approvals:write' }, schema: { tags: TAGS, summary: 'Create an approval policy for one action', params: ProjectParams, body: FreeBody, response: { 201: PolicyResponse } } }, async (request, reply) => {
      requireAdmin(request);
      return reply.code(201).send(presentPolicy(await createPolicy(units, request.project.id, request.principal.user.id, request.body)));
    });
    app.get('/:id', { config: { scope: 'approvals:read' }, schema: { tags: TAGS, summary: 'Retrieve an approval policy', params: ItemParams, response: { 200: PolicyResponse } } }, async (request) => {
      return presentPolicy(orNotFound(await findPolicy(pool, request.project.id, idOf(request.params.id))));
    });
    for (const method of ['PATCH', 'PUT'] as const) app.route({
      method,
      url: '/:id',
      config: { scope: 'approvals:write' },
      schema: { tags: TAGS, summary: 'Change an approval policy', params: ItemParams, body: FreeBody, response: { 200: PolicyResponse } },
      handler: async (request) => {
        requireAdmin(request);
        return presentPolicy(await changePolicy(units, request.project.id, idOf(request.params.id), request.body, method === 'PATCH'));
      },
    });
    app.delete('/:id', { config: { scope: 'approvals:write' }, schema: { tags: TAGS, summary: 'Delete an approval policy', params: ItemParams } }, async (request, reply) => {
      requireAdmin(request);
      await removePolicy(units, request.project.id, idOf(request.params.id));
      return reply.code(204).send();
    });
  };
}

/** `/api/projects/:project_id/change_requests`: read, approve, reject, cancel. */
export function changeRequestRoutes(deps: FlagWriteDeps) {
  const { pool } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/': ['GET'], '/:id': ['GET'] });
    app.get(
      '/',
      {
        config: { scope: 'approvals:read' },
        schema: {
          tags: TAGS,
          summary: 'List change requests, newest first',
          params: ProjectParams,
          querystring: Type.Object({
            ...Page,
            state: Type.Optional(Type.String({ maxLength: 200, description: 'comma-separated states' })),
            action_key: Type.Optional(Type.String({ maxLength: 200 })),
            requester: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
            resource_type: Type.Optional(Type.String({ maxLength: 200 })),
            resource_id: Type.Optional(Type.String({ maxLength: 200 })),
          }),
          response: { 200: ChangeRequestListResponse },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const { state, ...filter } = request.query;
        await expireOverdue(poolWrite(pool), request.project.id);
        const { count, rows } = await listChangeRequests(pool, request.project.id, { ...filter, ...(state ? { state: state.split(',').map((s) => s.trim()) } : {}) }, page.limit, page.offset);
        const reader = { userId: request.principal.user.id };
        return paginated(request, page, count, rows.map((row) => presentChangeRequest(row, reader)));
      },
    );
    app.get('/:id', { config: { scope: 'approvals:read' }, schema: { tags: TAGS, summary: 'Retrieve a change request', params: ItemParams, response: { 200: ChangeRequestResponse } } }, async (request) => {
      await expireOverdue(poolWrite(pool), request.project.id);
      return presentChangeRequest(orNotFound(await findChangeRequest(pool, request.project.id, idOf(request.params.id))), { userId: request.principal.user.id });
    });
    const actions = { approve, reject, cancel } as const;
    for (const [name, act] of Object.entries(actions)) {
      refuseOtherMethods(root, `/:id/${name}`, ['POST']);
      app.post(
        `/:id/${name}`,
        { config: { scope: 'approvals:write' }, schema: { tags: TAGS, summary: `${name[0].toUpperCase()}${name.slice(1)} a change request`, params: ItemParams, body: Type.Optional(ReasonBody), response: { 200: DecisionResponse } } },
        async (request) =>
          act(deps, { projectId: request.project.id, requestId: idOf(request.params.id), userId: request.principal.user.id, reason: request.body?.reason ?? null }),
      );
    }
  };
}
