import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../kernel/deps.ts';
import { notFound, orNotFound } from '../kernel/errors.ts';
import { refuseOtherMethodsOn } from '../kernel/http/method-not-allowed.ts';
import { listPage } from '../kernel/http/pagination.ts';
import { routeOptions } from '../kernel/http/route-options.ts';
import { presentDashboard, presentDashboardBasic } from './present.ts';
import { DashboardListQuery, DashboardListResponse, DashboardParams, DashboardResponse, ProjectParams } from './schemas.ts';
import { findDashboard, listDashboards } from './store.ts';

const route = routeOptions(['dashboards']);
const INT32_MAX = 2147483647;

function parseDashboardId(raw: string): number {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > INT32_MAX) throw notFound();
  return Number(raw);
}

/** Read-only dashboards: `/api/projects/:project_id/dashboards` (flags' usage dashboards live here). */
export function dashboardRoutes(deps: Kernel) {
  const { pool } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/': ['GET'], '/:id': ['GET'] });

    app.get(
      '/',
      route.scoped('dashboard:read', 'List dashboards (not deleted)', {
        params: ProjectParams, querystring: DashboardListQuery, response: { 200: DashboardListResponse },
      }),
      async (request) => {
        return listPage(request, request.query, (page) => listDashboards(pool, request.project.id, page.limit, page.offset), presentDashboardBasic);
      },
    );

    app.get(
      '/:id',
      route.scoped('dashboard:read', 'Retrieve a dashboard with its insights, their results computed from the events now', {
        params: DashboardParams, response: { 200: DashboardResponse },
      }),
      async (request) => {
        return presentDashboard(pool, orNotFound(await findDashboard(pool, request.project.id, parseDashboardId(request.params.id))));
      },
    );
  };
}
