import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema, Static } from 'typebox';
import type { ReadHandle } from '../../db/pool.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { ActivityPageQuery, ActivityPageResponse, activityPage } from './page.ts';

interface ActivityRoute<P extends TSchema> {
  /** The activity log scope of the area's records. */
  scope: string;
  tags: string[];
  summary: string;
  params: P;
}

function activityOptions<P extends TSchema>(route: ActivityRoute<P>) {
  return routeOptions(route.tags).scoped('activity_log:read', route.summary, {
    params: route.params,
    querystring: ActivityPageQuery,
    response: { 200: ActivityPageResponse },
  });
}

function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

/** `GET /activity`: the activity of every record of one scope in the project, by page number. */
export function projectActivityRoute<P extends TSchema>(app: FastifyInstance, db: ReadHandle, route: ActivityRoute<P>): void {
  typed(app).get(
    '/activity',
    activityOptions(route),
    async (request) => activityPage(db, request, request.query, { projectId: request.project.id, scope: route.scope }),
  );
}

/** `GET /:id/activity`: the activity of one record; `itemOf` answers its id as logged, or throws 404. */
export function itemActivityRoute<P extends TSchema>(
  app: FastifyInstance,
  db: ReadHandle,
  route: ActivityRoute<P> & { itemOf: (request: FastifyRequest<{ Params: Static<P> }>) => Promise<string> },
): void {
  typed(app).get(
    '/:id/activity',
    activityOptions(route),
    async (request) => {
      // The route validated the params against `route.params`.
      const itemId = await route.itemOf(request as FastifyRequest<{ Params: Static<P> }>);
      return activityPage(db, request, request.query, { projectId: request.project.id, scope: route.scope, itemId });
    },
  );
}
