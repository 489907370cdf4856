/**
 * Flag definitions for local evaluation:
 * `GET /flags/definitions` (posthog-node ≥ 5.29.4), `GET /api/feature_flag/local_evaluation`
 * (older SDKs) and the project's `GET /api/projects/{project_id}/feature_flags/local_evaluation`.
 *
 * Served from the project's cached view: the JSON bytes, their ETag and their gzip are made once per
 * change, so a poll costs no query and no serialisation or compression. `If-None-Match` naming the
 * current ETag → 304 with no body; `Accept-Encoding: gzip` → the gzipped bytes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EarlyAnswer } from '../../kernel/http/early-answer.ts';
import { revalidated, revalidation } from '../../kernel/http/etag.ts';
import type { RawAnswer, RawRequest } from '../../kernel/http/raw-answers.ts';
import type { SdkDeps } from '../deps.ts';
import { queryFlag } from '../flags-request.ts';
import { DefinitionsQuery, DefinitionsResponse, ProjectParams } from '../schemas.ts';

const TAGS = ['sdk'];
/** Under the project's `/feature_flags` (kernel/http/project-scope.ts). */
const PROJECT_LOCAL_EVALUATION = '/local_evaluation';
export const DEFINITIONS_PATHS = ['/flags/definitions', '/api/feature_flag/local_evaluation'] as const;

const DESCRIPTION =
  '`Authorization: Bearer` with a personal API key (scope `feature_flag:read`; `?token=<phc_…>` picks the project, ' +
  'else the path\'s or the key\'s current project) or the project\'s secret token (`phs_…`). Every live flag (inactive ' +
  'ones too, remote-configuration flags left out), the group type mapping and, with `send_cohorts`, the cohorts used. ' +
  '`ETag` + `If-None-Match` → 304. See docs/sdk.md.';

async function answer(deps: SdkDeps, request: FastifyRequest, reply: FastifyReply, pathProject?: string): Promise<EarlyAnswer> {
  const projectId = await deps.auth.definitionsProject(request, pathProject);
  const query = (request.query ?? {}) as Record<string, unknown>;
  const sendCohorts = 'send_cohorts' in query && queryFlag(query.send_cohorts);
  return revalidated(request, reply, (await deps.cache.view(projectId)).definitions(sendCohorts));
}

async function serve(deps: SdkDeps, request: FastifyRequest, reply: FastifyReply, pathProject?: string) {
  const { status, payload } = await answer(deps, request, reply, pathProject);
  reply.code(status);
  return payload === null ? reply.send() : reply.send(payload);
}

/**
 * A poll answered from the onRequest hook (kernel/http/early-answer.ts): the key check, then the
 * cached bytes. Any refusal is left to the route, which answers it as always.
 */
function early(app: FastifyInstance, deps: SdkDeps, pathProject?: (request: FastifyRequest) => string) {
  return app.earlyAnswers.hooks((request, reply) => answer(deps, request, reply, pathProject?.(request)));
}

/**
 * A poll answered before Fastify routes it (kernel/http/raw-answers.ts): the remembered grant,
 * then the cached bytes. A poll it cannot answer (no grant, a refusal) goes to the route.
 */
async function rawAnswer(deps: SdkDeps, request: RawRequest): Promise<RawAnswer> {
  const projectId = await deps.auth.definitionsGrant(request.headers.authorization, request.query.token || null);
  const sendCohorts = 'send_cohorts' in request.query && queryFlag(request.query.send_cohorts);
  const view = await deps.cache.view(projectId);
  return revalidation(request.headers['if-none-match'], request.headers['accept-encoding'], view.definitions(sendCohorts));
}

function schema(summary: string, withProject: boolean) {
  return {
    tags: TAGS,
    summary,
    description: DESCRIPTION,
    security: [{ PersonalAPIKeyAuth: ['feature_flag:read'] }],
    'x-required-scope': 'feature_flag:read',
    ...(withProject ? { params: ProjectParams } : {}),
    querystring: DefinitionsQuery,
    response: { 200: DefinitionsResponse },
  };
}

export function definitionsRoutes(deps: SdkDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    for (const url of DEFINITIONS_PATHS) {
      app.rawAnswers.get(url, (request) => rawAnswer(deps, request));
      app.get(
        url,
        { config: { public: {} }, schema: schema(`Flag definitions for local evaluation (${url})`, false), ...early(app, deps) },
        (request, reply) => serve(deps, request, reply),
      );
    }
  };
}

/** The project's own path: mounted under each project prefix. */
export function projectDefinitionsRoutes(deps: SdkDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    app.get(
      PROJECT_LOCAL_EVALUATION,
      {
        config: { public: {} },
        schema: schema("The project's flag definitions for local evaluation", true),
        ...early(app, deps, (request) => (request.params as { project_id: string }).project_id),
      },
      (request, reply) => serve(deps, request, reply, (request.params as { project_id: string }).project_id),
    );
  };
}
