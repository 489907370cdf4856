/**
 * `/api/projects/:project_id/early_access_feature/`: list, create, retrieve, PUT/PATCH, DELETE,
 * and the persons enrolled in one feature (the console's list).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { toUserSummary } from '../accounts/users/user-summary.ts';
import type { FlagRecord } from '../flags/record.ts';
import { findFlag } from '../flags/store.ts';
import { notFound } from '../kernel/errors.ts';
import { refuseOtherMethods } from '../kernel/http/method-not-allowed.ts';
import { pageOf, paginated } from '../kernel/http/pagination.ts';
import { routeOptions } from '../kernel/http/route-options.ts';
import type { EarlyAccessDeps } from './deps.ts';
import { presentFeature } from './present.ts';
import { enrollmentProperty, type FeatureRecord } from './record.ts';
import { EnrolledResponse, Feature, FeatureList, FeatureListQuery, FeatureParams, FeatureWriteBody, ProjectParams } from './schemas.ts';
import { enrolledPersons, findFeature, listFeatures } from './store.ts';
import { createFeature, removeFeature, updateFeature } from './write.ts';

const route = routeOptions(['early access features']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function idOf(raw: string): string {
  if (!UUID.test(raw)) throw notFound();
  return raw.toLowerCase();
}

const actorOf = (request: FastifyRequest) => toUserSummary(request.principal.user);

export function earlyAccessRoutes(deps: EarlyAccessDeps) {
  const { pool } = deps;
  const flagOf = async (feature: FeatureRecord): Promise<FlagRecord | null> =>
    feature.feature_flag_id === null ? null : findFlag(pool, feature.project_id, feature.feature_flag_id);

  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethods(root, '/', ['GET', 'POST']);
    refuseOtherMethods(root, '/:id', ['GET', 'PATCH', 'PUT', 'DELETE']);
    refuseOtherMethods(root, '/:id/enrolled_persons', ['GET']);

    app.get(
      '/',
      route.scoped('early_access_feature:read', 'List early access features (newest first)', {
        params: ProjectParams, querystring: FeatureListQuery, response: { 200: FeatureList },
      }),
      async (request) => {
        const page = pageOf(request.query);
        const { count, rows } = await listFeatures(pool, request.project.id, page.limit, page.offset);
        const results = await Promise.all(rows.map(async (row) => presentFeature(row, await flagOf(row))));
        return paginated(request, page, count, results);
      },
    );

    app.post(
      '/',
      route.scoped(
        'early_access_feature:write',
        'Create a feature: links `feature_flag_id` or creates a flag (key = slug of the name, rollout 0 %); an enrolling stage marks the flag',
        { params: ProjectParams, body: FeatureWriteBody, response: { 201: Feature } },
      ),
      async (request, reply) => {
        const written = await createFeature(deps, request.project.id, actorOf(request), request.body);
        return reply.code(201).send(presentFeature(written.feature, written.flag));
      },
    );

    app.get(
      '/:id',
      route.scoped('early_access_feature:read', 'Retrieve a feature', { params: FeatureParams, response: { 200: Feature } }),
      async (request) => {
        const feature = await findFeature(pool, request.project.id, idOf(request.params.id));
        if (!feature) throw notFound();
        return presentFeature(feature, await flagOf(feature));
      },
    );

    for (const method of ['PATCH', 'PUT'] as const) {
      app.route({
        method,
        url: '/:id',
        ...route.scoped(
          'early_access_feature:write',
          'Update a feature; a stage change marks (alpha, beta, general availability) or unmarks (draft, concept, archived) the flag',
          { params: FeatureParams, body: FeatureWriteBody, response: { 200: Feature } },
        ),
        handler: async (request) => {
          const body = request.body;
          const written = await updateFeature(deps, request.project.id, idOf(request.params.id), actorOf(request), body, body.rollout_to_all === true);
          return presentFeature(written.feature, written.flag);
        },
      });
    }

    app.delete(
      '/:id',
      route.scoped('early_access_feature:write', 'Delete a feature; its flag stays, unmarked', { params: FeatureParams }),
      async (request, reply) => {
        await removeFeature(deps, request.project.id, idOf(request.params.id), actorOf(request));
        return reply.code(204).send();
      },
    );

    app.get(
      '/:id/enrolled_persons',
      route.scoped('early_access_feature:read', 'Persons who opted in (up to 100, newest first)', {
        params: FeatureParams, response: { 200: EnrolledResponse },
      }),
      async (request) => {
        const feature = await findFeature(pool, request.project.id, idOf(request.params.id));
        if (!feature) throw notFound();
        const flag = await flagOf(feature);
        if (!flag) return { results: [] };
        return { results: await enrolledPersons(pool, request.project.id, enrollmentProperty(flag.key), 100) };
      },
    );
  };
}
