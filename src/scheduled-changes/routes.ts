import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { membershipLevel } from '../accounts/auth/principal.ts';
import { toUserSummary } from '../accounts/users/user-summary.ts';
import type { Kernel } from '../kernel/deps.ts';
import { notFound, orNotFound } from '../kernel/errors.ts';
import { refuseOtherMethodsOn } from '../kernel/http/method-not-allowed.ts';
import { pageOf, paginated } from '../kernel/http/pagination.ts';
import { presentSchedule } from './present.ts';
import { createSchedule, removeSchedule, updateSchedule, type Scheduler } from './rules.ts';
import { ProjectParams, ScheduleBody, ScheduleListQuery, ScheduleListResponse, ScheduleParams, ScheduleResponse } from './schemas.ts';
import { findSchedule, listSchedules } from './store.ts';

const TAGS = ['feature_flags'];

const schedulerOf = (request: FastifyRequest): Scheduler => ({
  user: toUserSummary(request.principal.user),
  organizationLevel: membershipLevel(request.principal, request.project.organizationId),
});

/** A path id that is not a positive integer (within the safe range) names no schedule. */
function parseScheduleId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

/** `/api/projects/:project_id/scheduled_changes`: PostHog's scheduled changes of feature flags. */
export function scheduleRoutes(deps: Pick<Kernel, 'pool' | 'units'>) {
  const { pool, units } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/': ['GET', 'POST'], '/:id': ['GET', 'PATCH', 'PUT', 'DELETE'] });

    app.get(
      '/',
      {
        config: { scope: 'feature_flag:read' },
        schema: { tags: TAGS, summary: 'List scheduled changes (filter by model_name and record_id)', params: ProjectParams, querystring: ScheduleListQuery, response: { 200: ScheduleListResponse } },
      },
      async (request) => {
        const page = pageOf(request.query);
        const { model_name, record_id } = request.query;
        const { count, rows } = await listSchedules(pool, request.project.id, { model_name, record_id }, page.limit, page.offset);
        return paginated(request, page, count, rows.map(presentSchedule));
      },
    );

    app.post(
      '/',
      {
        config: { scope: 'feature_flag:write' },
        schema: { tags: TAGS, summary: 'Schedule a change of a feature flag', params: ProjectParams, body: ScheduleBody, response: { 201: ScheduleResponse } },
      },
      async (request, reply) => {
        const row = await createSchedule(units, request.project.id, schedulerOf(request), request.body);
        return reply.code(201).send(presentSchedule(row));
      },
    );

    app.get(
      '/:id',
      {
        config: { scope: 'feature_flag:read' },
        schema: { tags: TAGS, summary: 'Retrieve a scheduled change', params: ScheduleParams, response: { 200: ScheduleResponse } },
      },
      async (request) => {
        return presentSchedule(orNotFound(await findSchedule(pool, request.project.id, parseScheduleId(request.params.id))));
      },
    );

    for (const method of ['PATCH', 'PUT'] as const) app.route({
      method,
      url: '/:id',
      config: { scope: 'feature_flag:write' },
      schema: {
        tags: TAGS,
        summary: method === 'PATCH' ? 'Change a scheduled change (PATCH {"is_recurring": false} pauses a recurring one, true resumes it)' : 'Replace a scheduled change',
        params: ScheduleParams,
        body: ScheduleBody,
        response: { 200: ScheduleResponse },
      },
      handler: async (request) => presentSchedule(await updateSchedule(units, request.project.id, schedulerOf(request), parseScheduleId(request.params.id), request.body, method === 'PATCH')),
    });

    app.delete(
      '/:id',
      {
        config: { scope: 'feature_flag:write' },
        schema: { tags: TAGS, summary: 'Delete a scheduled change', params: ScheduleParams },
      },
      async (request, reply) => {
        await removeSchedule(units, request.project.id, parseScheduleId(request.params.id));
        return reply.code(204).send();
      },
    );
  };
}
