import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { itemActivityRoute, projectActivityRoute } from '../accounts/activity/routes.ts';
import { membershipLevel } from '../accounts/auth/principal.ts';
import { toUserSummary } from '../accounts/users/user-summary.ts';
import { NoBody } from '../events/taxonomy/http.ts';
import type { FlagRecord } from '../flags/record.ts';
import { notFound, orNotFound, requiredField } from '../kernel/errors.ts';
import { isQueryTrue } from '../kernel/http/drf-boolean.ts';
import { refuseOtherMethods, refuseOtherMethodsOn } from '../kernel/http/method-not-allowed.ts';
import { pageLinks, pageOf } from '../kernel/http/pagination.ts';
import { sendJson } from '../kernel/http/send-json.ts';
import type { ExperimentDeps } from './deps.ts';
import { duplicateExperiment } from './duplicate.ts';
import type { Actor } from './flag.ts';
import { runLifecycleAction, type ActionBody, type LifecycleAction } from './lifecycle.ts';
import { listExperiments } from './list-store.ts';
import { presentExperiment, type FlagSource } from './present.ts';
import { EXPERIMENT_ACTIVITY_SCOPE } from './record.ts';
import {
  ArchiveBody,
  DuplicateBody,
  EndBody,
  ExperimentListQuery,
  ExperimentListResponse,
  ExperimentParams,
  ExperimentResponse,
  ExperimentWriteBody,
  ProjectParams,
  ShipVariantBody,
} from './schemas.ts';
import { findExperiment } from './store.ts';
import { createExperiment, updateExperimentById, type Written } from './write.ts';

const TAGS = ['experiments'];

/** The id in the path; anything that cannot be one names no experiment (404). */
function idOf(raw: string): number {
  const id = /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!(id >= 1 && id <= 2147483647)) throw notFound();
  return id;
}

function actorOf(request: FastifyRequest): Actor {
  return { user: toUserSummary(request.principal.user), organizationLevel: membershipLevel(request.principal, request.project.organizationId) };
}

const viewerOf = (request: FastifyRequest) => ({ userId: request.principal.user.id, organizationLevel: membershipLevel(request.principal, request.project.organizationId) });

const ACTIONS: Array<{ action: LifecycleAction; summary: string; body?: typeof EndBody | typeof ShipVariantBody | typeof ArchiveBody }> = [
  { action: 'launch', summary: 'Launch a draft: start_date = now, the flag is switched on' },
  { action: 'pause', summary: 'Pause a running experiment: its flag is switched off' },
  { action: 'resume', summary: 'Resume a paused experiment: its flag is switched on again' },
  { action: 'end', summary: 'End a running experiment: end_date = now (with an optional conclusion); the flag is untouched', body: EndBody },
  {
    action: 'ship_variant',
    summary: 'Ship a variant: it gets 100 % of the flag’s split (release_to_everyone: a catch-all condition set first); ends the experiment if running',
    body: ShipVariantBody,
  },
  { action: 'archive', summary: 'Archive an ended experiment (disable_feature_flag: the flag is switched off and archived too)', body: ArchiveBody },
  { action: 'unarchive', summary: 'Unarchive an archived experiment' },
  { action: 'reset', summary: 'Back to draft: dates, conclusion and archived cleared; the flag is untouched; exposures and metric state are forgotten' },
];

/** CRUD (soft delete by PATCH), duplicate, the lifecycle actions and the activity of experiments. */
export function experimentRoutes(deps: ExperimentDeps) {
  const { pool, flagCache } = deps;
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, {
      '/': ['GET', 'POST'], '/activity': ['GET'], '/:id': ['GET', 'PATCH', 'PUT', 'DELETE'], '/:id/activity': ['GET'], '/:id/duplicate': ['POST'],
    });
    for (const { action } of ACTIONS) refuseOtherMethods(root, `/:id/${action}`, ['POST']);

    async function flagsOf(projectId: number, written?: FlagRecord): Promise<FlagSource> {
      const project = await flagCache.project(projectId);
      return (id) => (written && written.id === id ? written : (project.get(id)?.record ?? null));
    }

    async function answer(request: FastifyRequest, written: Written): Promise<string> {
      const flags = await flagsOf(request.project.id, written.flag);
      return JSON.stringify(presentExperiment(written.experiment, flags, viewerOf(request)));
    }

    app.get(
      '/',
      {
        config: { scope: 'experiment:read' },
        schema: { tags: TAGS, summary: 'List experiments (newest first; archived ones only with archived=true)', params: ProjectParams, querystring: ExperimentListQuery, response: { 200: ExperimentListResponse } },
      },
      async (request, reply) => {
        const page = pageOf(request.query);
        const { status, archived, created_by_id, search, feature_flag_id, order } = request.query;
        const createdByIds = created_by_id === undefined ? undefined : created_by_id.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0 && n <= 2147483647);
        const { count, rows } = await listExperiments(pool, request.project.id, {
          status,
          archived: archived === undefined ? undefined : isQueryTrue(archived),
          createdByIds,
          search,
          featureFlagId: feature_flag_id,
          order,
          ...page,
        });
        const flags = await flagsOf(request.project.id);
        const viewer = viewerOf(request);
        const results = rows.map((row) => presentExperiment(row, flags, viewer));
        return sendJson(reply, JSON.stringify({ count, ...pageLinks(request, page, count), results }));
      },
    );

    app.post(
      '/',
      {
        config: { scope: 'experiment:write' },
        schema: {
          tags: TAGS,
          summary: 'Create an experiment (a draft unless start_date is sent)',
          description:
            'A missing flag is created: multivariate (control/test 50/50 unless `parameters.feature_flag_variants`), everyone, off while a draft. An existing flag must have control as its first variant and is not changed.',
          params: ProjectParams,
          body: ExperimentWriteBody,
          response: { 201: ExperimentResponse },
        },
      },
      async (request, reply) => sendJson(reply.code(201), await answer(request, await createExperiment(deps, request.project.id, actorOf(request), request.body))),
    );

    projectActivityRoute(root, pool, { scope: EXPERIMENT_ACTIVITY_SCOPE, tags: TAGS, summary: 'Activity of every experiment in the project', params: ProjectParams });

    app.get(
      '/:id',
      {
        config: { scope: 'experiment:read' },
        schema: { tags: TAGS, summary: 'Retrieve an experiment', params: ExperimentParams, response: { 200: ExperimentResponse } },
      },
      async (request, reply) => {
        const experiment = orNotFound(await findExperiment(pool, request.project.id, idOf(request.params.id)));
        const flags = await flagsOf(request.project.id);
        return sendJson(reply, JSON.stringify(presentExperiment(experiment, flags, viewerOf(request))));
      },
    );

    for (const method of ['PATCH', 'PUT'] as const) {
      app.route({
        method,
        url: '/:id',
        config: { scope: 'experiment:write' },
        schema: {
          tags: TAGS,
          summary: method === 'PATCH' ? 'Update an experiment' : 'Update an experiment in full (DRF): `name` and `feature_flag_key` are required',
          description:
            '`deleted: true` soft-deletes, `deleted: false` restores. A draft with `parameters` rewrites its flag’s variants; a launched one may only resend the same variant keys. Setting `start_date` on a draft launches it (the flag is switched on).',
          params: ExperimentParams,
          body: ExperimentWriteBody,
          response: { 200: ExperimentResponse },
        },
        handler: async (request, reply) => {
          if (method === 'PUT') {
            if (request.body.name === undefined) throw requiredField('name');
            if (request.body.feature_flag_key === undefined) throw requiredField('feature_flag_key');
          }
          const written = await updateExperimentById(deps, { projectId: request.project.id, id: idOf(request.params.id), actor: actorOf(request), body: request.body });
          return sendJson(reply, await answer(request, written));
        },
      });
    }

    app.delete(
      '/:id',
      {
        config: { scope: 'experiment:write' },
        schema: {
          tags: TAGS,
          summary: 'Never deletes: answers 405 with no body. Soft-delete with PATCH {"deleted": true}.',
          params: ExperimentParams,
          response: { 405: NoBody('Always: experiments are never deleted. Soft-delete with PATCH `{"deleted": true}`.') },
        },
      },
      async (_request, reply) => reply.code(405).header('allow', 'GET, PATCH, PUT, HEAD, OPTIONS').send(),
    );

    itemActivityRoute(root, pool, {
      scope: EXPERIMENT_ACTIVITY_SCOPE,
      tags: TAGS,
      summary: 'Activity of one experiment',
      params: ExperimentParams,
      itemOf: async (request) => {
        const experiment = orNotFound(await findExperiment(pool, request.project.id, idOf(request.params.id)));
        return String(experiment.id);
      },
    });

    app.post(
      '/:id/duplicate',
      {
        config: { scope: 'experiment:write' },
        schema: {
          tags: TAGS,
          summary: 'Copy the experiment as a draft named "<name> (Copy)"; `feature_flag_key` uses (or creates) another flag',
          params: ExperimentParams,
          body: DuplicateBody,
          response: { 201: ExperimentResponse },
        },
      },
      async (request, reply) =>
        sendJson(reply.code(201), await answer(request, await duplicateExperiment(deps, request.project.id, idOf(request.params.id), actorOf(request), request.body))),
    );

    for (const { action, summary, body } of ACTIONS) {
      app.post(
        `/:id/${action}`,
        {
          config: { scope: 'experiment:write' },
          schema: { tags: TAGS, summary, params: ExperimentParams, ...(body ? { body } : {}), response: { 200: ExperimentResponse } },
        },
        async (request, reply) => {
          const written = await runLifecycleAction(deps, {
            projectId: request.project.id,
            id: idOf(request.params.id),
            actor: actorOf(request),
            action,
            body: (request.body ?? {}) as ActionBody,
          });
          return sendJson(reply, await answer(request, written));
        },
      );
    }
  };
}
