import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { listPage, PaginationQuery } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { Member, MemberList, MemberParams, UpdateMemberBody } from './schemas.ts';
import { listOrganizationMembers, removeMember, updateMember } from './service.ts';

const route = routeOptions(['platform']);

/** PostHog's organization members (`/api/organizations/{id}/members/`); see docs/accounts.md. */
export function memberRoutes(deps: AccountsDeps) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/organizations/:organization_id/members',
      route.scoped('organization_member:read', "List the organization's members (any member may)", {
        params: OrganizationParams, querystring: PaginationQuery, response: { 200: MemberList },
      }),
      async (request) =>
        listPage(request, request.query, (page) => listOrganizationMembers(deps, request.principal, request.params.organization_id, page)),
    );

    app.patch(
      '/api/organizations/:organization_id/members/:user_uuid',
      route.scoped('organization_member:write', "Change a member's level (admins and owners; never above one's own; not one's own)", {
        description: 'Only an owner makes owners. The last owner cannot be demoted (400 `last_owner`).',
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: Member },
      }),
      async (request) =>
        updateMember(deps, request.principal, request.params.organization_id, request.params.user_uuid, request.body.level),
    );

    app.delete(
      '/api/organizations/:organization_id/members/:user_uuid',
      route.scoped('organization_member:write', 'Remove a member, or leave (your own uuid): their sessions end at once', {
        description:
          'Admins and owners remove members at or below their own level; anyone may leave. The last owner cannot ' +
          'leave or be removed (400 `last_owner`). The person\'s personal API keys no longer reach the organization.',
        params: MemberParams, response: { 204: Type.Null({ description: 'Removed.' }) },
      }),
      async (request, reply) => {
        await removeMember(deps, request.principal, request.params.organization_id, request.params.user_uuid);
        return reply.code(204).send(null);
      },
    );
  };
}
