import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../../kernel/deps.ts';
import { orNotFound } from '../../kernel/errors.ts';
import { refuseOtherMethodsOn } from '../../kernel/http/method-not-allowed.ts';
import { pageOf, paginated } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { isoUtc } from '../../kernel/time.ts';
import { findGroup, listGroups, listGroupTypes, type GroupRow } from './read-model.ts';
import { Group, GroupFindQuery, GroupList, GroupListQuery, GroupTypeList, ProjectParams } from './schemas.ts';

const route = routeOptions(['groups']);

function presentGroup(row: GroupRow): Group {
  return {
    group_type_index: row.group_type_index,
    group_key: row.group_key,
    group_properties: row.group_properties,
    created_at: isoUtc(row.created_at),
  };
}

/**
 * /api/projects/:project_id/groups_types and /groups (read-only: groups come from `$groupidentify`
 * events). Registered with the prefix `/api/projects/:project_id`.
 */
export function groupRoutes(deps: Kernel) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/groups_types': ['GET'], '/groups': ['GET'], '/groups/find': ['GET'] });

    app.get(
      '/groups_types',
      route.scoped('group:read', "The project's group types, by index", { params: ProjectParams, response: { 200: GroupTypeList } }),
      async (request) => listGroupTypes(deps.pool, request.project.id),
    );

    app.get(
      '/groups',
      route.scoped('group:read', 'List the groups of one type, newest first', {
        params: ProjectParams, querystring: GroupListQuery, response: { 200: GroupList },
      }),
      async (request) => {
        const page = pageOf(request.query);
        const search = request.query.search?.trim() || undefined;
        const { count, rows } = await listGroups(deps.pool, request.project.id, request.query.group_type_index, search, page);
        return paginated(request, page, count, rows.map(presentGroup));
      },
    );

    app.get(
      '/groups/find',
      route.scoped('group:read', 'Retrieve one group by type index and key', { params: ProjectParams, querystring: GroupFindQuery, response: { 200: Group } }),
      async (request) => {
        return presentGroup(orNotFound(await findGroup(deps.pool, request.project.id, request.query.group_type_index, request.query.group_key)));
      },
    );
  };
}
