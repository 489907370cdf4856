import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SurveyDeps } from './deps.ts';
import { itemActivityRoute, projectActivityRoute } from '../accounts/activity/routes.ts';
import { membershipLevel } from '../accounts/auth/principal.ts';
import { requiredField } from '../kernel/errors.ts';
import { isQueryTrue } from '../kernel/http/drf-boolean.ts';
import { refuseOtherMethodsOn } from '../kernel/http/method-not-allowed.ts';
import { pageLinks, pageOf } from '../kernel/http/pagination.ts';
import { routeOptions } from '../kernel/http/route-options.ts';
import { sendJson } from '../kernel/http/send-json.ts';
import { NoBody } from '../events/taxonomy/http.ts';
import { toUserSummary } from '../accounts/users/user-summary.ts';
import { createSurvey } from './create.ts';
import { deleteSurveyById } from './delete.ts';
import { duplicateSurvey } from './duplicate.ts';
import { launchSurvey, stopSurvey } from './launch.ts';
import { flagsFrom, presentSurvey, presentWrittenSurvey, type SurveyViewer } from './present.ts';
import { requireSurvey } from './read-store.ts';
import { SURVEY_ACTIVITY_SCOPE } from './record.ts';
import {
  DuplicateBody,
  DuplicateResponse,
  ProjectParams,
  SurveyFullBody,
  SurveyListQuery,
  SurveyListResponse,
  SurveyParams,
  SurveyResponse,
  SurveyWriteBody,
  SurveyWriteResponse,
} from './schemas.ts';
import { listSurveys } from './store.ts';
import { updateSurveyById } from './update.ts';

const route = routeOptions(['surveys']);

function viewerOf(request: FastifyRequest): SurveyViewer {
  return { userId: request.principal.user.id, organizationLevel: membershipLevel(request.principal, request.project.organizationId) };
}

/** CRUD, search, activity and duplicate_to_projects. Answers are sent as JSON text; the schemas document them. */
export function surveyRoutes(deps: SurveyDeps) {
  const { pool, flagCache } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, {
      '/': ['GET', 'POST'], '/activity': ['GET'], '/:id': ['GET', 'PATCH', 'PUT', 'DELETE'], '/:id/activity': ['GET'],
      '/:id/duplicate_to_projects': ['POST'], '/:id/launch': ['POST'], '/:id/stop': ['POST'],
    });

    app.get(
      '/',
      route.scoped('survey:read', 'List surveys (newest first)', {
        params: ProjectParams, querystring: SurveyListQuery, response: { 200: SurveyListResponse },
      }),
      async (request, reply) => {
        const page = pageOf(request.query);
        const { search, archived } = request.query;
        const { count, surveys } = await listSurveys(pool, request.project.id, {
          search,
          archived: archived === undefined ? undefined : isQueryTrue(archived),
          ...page,
        });
        const flags = flagsFrom(await flagCache.project(request.project.id));
        const viewer = viewerOf(request);
        const results = surveys.map((survey) => presentSurvey(survey, flags, viewer));
        return sendJson(reply, JSON.stringify({ count, ...pageLinks(request, page, count), results }));
      },
    );

    app.post(
      '/',
      route.scoped('survey:write', 'Create a survey', { params: ProjectParams, body: SurveyFullBody, response: { 201: SurveyWriteResponse } }),
      async (request, reply) => {
        const { survey, flags } = await createSurvey(deps, request.project.id, toUserSummary(request.principal.user), request.body);
        const source = flagsFrom(await flagCache.project(request.project.id), flags);
        return sendJson(reply.code(201), JSON.stringify(presentWrittenSurvey(survey, source, request.body.remove_targeting_flag)));
      },
    );

    projectActivityRoute(root, pool, { scope: SURVEY_ACTIVITY_SCOPE, tags: route.tags, summary: 'Activity of every survey in the project', params: ProjectParams });

    app.get(
      '/:id',
      route.scoped('survey:read', 'Retrieve a survey', { params: SurveyParams, response: { 200: SurveyResponse } }),
      async (request, reply) => {
        const survey = await requireSurvey(pool, request.project.id, request.params.id);
        const flags = flagsFrom(await flagCache.project(request.project.id));
        return sendJson(reply, JSON.stringify(presentSurvey(survey, flags, viewerOf(request))));
      },
    );

    for (const method of ['PATCH', 'PUT'] as const) app.route({
      method,
      url: '/:id',
      ...route.scoped(
        'survey:write',
        method === 'PATCH' ? 'Update a survey' : 'Update a survey in full (DRF): `name` and `type` are required; fields left out keep their values',
        {
          description:
            'Launch with `start_date`, stop with `end_date`, resume with `end_date: null`, archive with `archived`; the targeting and internal flags follow. `remove_targeting_flag: true` soft-deletes the targeting flag.',
          params: SurveyParams,
          body: method === 'PUT' ? SurveyFullBody : SurveyWriteBody,
          response: { 200: SurveyWriteResponse },
        },
      ),
      handler: async (request, reply) => {
        if (method === 'PUT') {
          if (request.body.name === undefined) throw requiredField('name');
          if (request.body.type === undefined) throw requiredField('type');
        }
        const { survey, flags } = await updateSurveyById(deps, {
          projectId: request.project.id,
          rawId: request.params.id,
          actor: toUserSummary(request.principal.user),
          body: request.body,
        });
        const source = flagsFrom(await flagCache.project(request.project.id), flags);
        return sendJson(reply, JSON.stringify(presentWrittenSurvey(survey, source, request.body.remove_targeting_flag)));
      },
    });

    app.delete(
      '/:id',
      route.scoped('survey:write', 'Delete a survey (204); its targeting, internal and sampling flags are soft-deleted, the linked flag is kept', {
        params: SurveyParams, response: { 204: NoBody('Deleted.') },
      }),
      async (request, reply) => {
        await deleteSurveyById(deps, request.project.id, request.params.id, toUserSummary(request.principal.user));
        return reply.code(204).send();
      },
    );

    itemActivityRoute(root, pool, {
      scope: SURVEY_ACTIVITY_SCOPE,
      tags: route.tags,
      summary: 'Activity of one survey',
      params: SurveyParams,
      itemOf: async (request) => {
        const survey = await requireSurvey(pool, request.project.id, request.params.id);
        return survey.id;
      },
    });

    for (const [action, run, summary] of [
      ['launch', launchSurvey, 'Launch the survey now (start_date = now); 400 when it is archived or already launched'],
      ['stop', stopSurvey, 'Stop the survey now (end_date = now); 400 when it is not launched or already stopped'],
    ] as const) {
      app.post(
        `/:id/${action}`,
        route.scoped('survey:write', summary, {
          description: 'The same change as a PATCH of the date (flags follow, activity entry); any body is ignored. Resume a stopped survey with a PATCH of `end_date: null`.',
          params: SurveyParams,
          response: { 200: SurveyWriteResponse },
        }),
        async (request, reply) => {
          const { survey, flags } = await run(deps, {
            projectId: request.project.id,
            rawId: request.params.id,
            actor: toUserSummary(request.principal.user),
          });
          const source = flagsFrom(await flagCache.project(request.project.id), flags);
          return sendJson(reply, JSON.stringify(presentWrittenSurvey(survey, source, undefined)));
        },
      );
    }

    app.post(
      '/:id/duplicate_to_projects',
      route.scoped('survey:write', 'Copy the survey, as a draft, into every target project: all or nothing, in one transaction', {
        description:
          'Body `{"target_team_ids": [...]}` (or `target_project_ids`). Every target must be a project the key may reach. Each copy is validated as a create in its project and gets its own internal targeting flag.',
        params: SurveyParams, body: DuplicateBody, response: { 200: DuplicateResponse },
      }),
      async (request, reply) => {
        const result = await duplicateSurvey(deps, {
          projectId: request.project.id,
          rawId: request.params.id,
          principal: request.principal,
          body: request.body,
        });
        return sendJson(reply, JSON.stringify(result));
      },
    );
  };
}
