import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../kernel/deps.ts';
import { itemActivityRoute, projectActivityRoute } from '../accounts/activity/routes.ts';
import { notFound, orNotFound } from '../kernel/errors.ts';
import { refuseOtherMethodsOn } from '../kernel/http/method-not-allowed.ts';
import { pageLinks, pageOf, paginated } from '../kernel/http/pagination.ts';
import { routeOptions } from '../kernel/http/route-options.ts';
import { toUserSummary } from '../accounts/users/user-summary.ts';
import { COHORT_ACTIVITY_SCOPE } from './activity.ts';
import { pluginJobs } from '../kernel/jobs.ts';
import { cohortMembers } from './members.ts';
import { presentCohort, presentMember } from './present.ts';
import {
  AddPersonsBody,
  CohortListQuery,
  CohortListResponse,
  CohortParams,
  CohortPersonsQuery,
  CohortPersonsResponse,
  CohortResponse,
  CohortWriteBody,
  ProjectParams,
  RemovePersonBody,
  SuccessResponse,
} from './schemas.ts';
import { addPersons, createCohort, removePerson, updateCohortById, type CohortDeps } from './service.ts';
import { findCohort, listCohorts } from './store.ts';

const route = routeOptions(['cohorts']);
const INT32_MAX = 2147483647;

/** A path id that is not a positive 32-bit integer names no cohort. */
export function parseCohortId(raw: string): number {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > INT32_MAX) throw notFound();
  return Number(raw);
}

/** The cohorts of a project: `/api/projects/:project_id/cohorts`. */
export function cohortRoutes(deps: Kernel) {
  const { pool } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    const { jobs, log } = pluginJobs(root);
    const cohortDeps: CohortDeps = { pool, units: deps.units, bus: deps.bus, jobs, log };

    refuseOtherMethodsOn(root, {
      '/': ['GET', 'POST'], '/:id': ['GET', 'PATCH'], '/:id/persons': ['GET'], '/:id/add_persons_to_static_cohort': ['PATCH'],
      '/:id/remove_person_from_static_cohort': ['PATCH'],
    });

    app.get(
      '/',
      route.scoped('cohort:read', 'List cohorts (not deleted), newest first', {
        params: ProjectParams, querystring: CohortListQuery, response: { 200: CohortListResponse },
      }),
      async (request) => {
        const page = pageOf(request.query);
        const { count, rows } = await listCohorts(pool, request.project.id, {
          ...page,
          search: request.query.search,
          hideBehavioral: request.query.hide_behavioral_cohorts,
        });
        return paginated(request, page, count, rows.map(presentCohort));
      },
    );

    app.post(
      '/',
      route.scoped('cohort:write', 'Create a cohort: dynamic (filters) or static (is_static, with _create_static_person_ids or filters to snapshot)', {
        params: ProjectParams, body: CohortWriteBody, response: { 201: CohortResponse },
      }),
      async (request, reply) => {
        const cohort = await createCohort(cohortDeps, request.project.id, toUserSummary(request.principal.user), request.body);
        return reply.code(201).send(presentCohort(cohort));
      },
    );

    projectActivityRoute(root, pool, { scope: COHORT_ACTIVITY_SCOPE, tags: route.tags, summary: 'Activity of every cohort in the project', params: ProjectParams });

    app.get(
      '/:id',
      route.scoped('cohort:read', 'Retrieve a cohort (deleted ones too)', { params: CohortParams, response: { 200: CohortResponse } }),
      async (request) => {
        const cohort = orNotFound(await findCohort(pool, request.project.id, parseCohortId(request.params.id)));
        return presentCohort(cohort);
      },
    );

    app.patch(
      '/:id',
      route.scoped('cohort:write', 'Update a cohort; `deleted: true` soft-deletes, `deleted: false` restores', {
        params: CohortParams, body: CohortWriteBody, response: { 200: CohortResponse },
      }),
      async (request) => {
        const cohort = await updateCohortById(
          cohortDeps,
          request.project.id,
          parseCohortId(request.params.id),
          toUserSummary(request.principal.user),
          request.body,
        );
        return presentCohort(cohort);
      },
    );

    app.get(
      '/:id/persons',
      route.scoped('cohort:read', "The cohort's persons: a static cohort's members, or the persons a dynamic cohort matches now", {
        params: CohortParams, querystring: CohortPersonsQuery, response: { 200: CohortPersonsResponse },
      }),
      async (request) => {
        const cohort = orNotFound(await findCohort(pool, request.project.id, parseCohortId(request.params.id)));
        const page = pageOf(request.query);
        const { rows, hasMore } = await cohortMembers(pool, request.project.id, cohort, page);
        // No total is counted: the links only need to know whether another page follows.
        const links = pageLinks(request, page, hasMore ? page.offset + page.limit + 1 : page.offset + rows.length);
        return { results: rows.map(presentMember), ...links };
      },
    );

    app.patch(
      '/:id/add_persons_to_static_cohort',
      route.scoped('cohort:write', 'Add persons (person UUIDs in person_ids, or distinct_ids) to a static cohort', {
        params: CohortParams, body: AddPersonsBody, response: { 200: SuccessResponse },
      }),
      async (request) => {
        await addPersons(cohortDeps, request.project.id, parseCohortId(request.params.id), toUserSummary(request.principal.user), request.body);
        return { success: true };
      },
    );

    app.patch(
      '/:id/remove_person_from_static_cohort',
      route.scoped('cohort:write', 'Remove a person (person_id UUID, or distinct_id) from a static cohort', {
        params: CohortParams, body: RemovePersonBody, response: { 200: SuccessResponse },
      }),
      async (request) => {
        await removePerson(cohortDeps, request.project.id, parseCohortId(request.params.id), toUserSummary(request.principal.user), request.body);
        return { success: true };
      },
    );

    itemActivityRoute(root, pool, {
      scope: COHORT_ACTIVITY_SCOPE,
      tags: route.tags,
      summary: 'Activity of one cohort',
      params: CohortParams,
      itemOf: async (request) => {
        const id = parseCohortId(request.params.id);
        if (!(await findCohort(pool, request.project.id, id))) throw notFound();
        return String(id);
      },
    });
  };
}
