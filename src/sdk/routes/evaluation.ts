/**
 * `POST /flags/` and `POST /decide/`: every flag of the project evaluated for one person, for the
 * SDKs. Authenticated by the project token (the public surface reads it); bodies as ingestion
 * reads them (JSON, gzip, base64, forms). See docs/sdk.md.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EarlyAnswer } from '../../kernel/http/early-answer.ts';
import { JSON_CONTENT_TYPE, sendJson } from '../../kernel/http/send-json.ts';
import { identifyPublicProject } from '../../public/hook.ts';
import type { SdkDeps } from '../deps.ts';
import { evaluateFor, type Evaluation } from '../evaluate.ts';
import { readFlagsQuery, readFlagsRequest } from '../flags-request.ts';
import { acceptRawBodies } from '../../public/body.ts';
import { BODY_LIMIT, readBody } from '../http.ts';
import { decideJson, flagsJson, type JsonBody } from '../responses.ts';
import { DecideQuery, FlagsBody, FlagsQuery, FlagsResponse } from '../schemas.ts';

const TAGS = ['sdk'];
const NO_FLAGS: Evaluation = { flags: [], errors: false };
type Kind = 'flags' | 'decide';

/** The answer's JSON once the project is known (`request.publicProject`). */
async function answer(deps: SdkDeps, request: FastifyRequest, kind: Kind): Promise<JsonBody> {
  const query = readFlagsQuery((request.query ?? {}) as Record<string, unknown>);
  const payload = await readBody(request);
  const flagsRequest = readFlagsRequest(payload, query);
  const view = await deps.cache.view(request.publicProject);
  const evaluation = flagsRequest.disableFlags
    ? NO_FLAGS
    : await evaluateFor(deps.pool, view, flagsRequest.input, flagsRequest.selection, request.log, deps.persons);
  return kind === 'flags' ? flagsJson(evaluation, query.version, query.config) : decideJson(evaluation, query.version);
}

/**
 * The answer given from the onRequest hook (kernel/http/early-answer.ts): the body read as the
 * route reads it, the project token checked as the public surface checks it, then `answer`. Any
 * refusal (an unreadable body, no or an unknown token, a bad field) throws, and the route answers
 * it as always.
 */
async function early(deps: SdkDeps, request: FastifyRequest, reply: FastifyReply, body: Buffer | null, kind: Kind): Promise<EarlyAnswer> {
  request.body = body;
  await identifyPublicProject(request, deps.auth.tokens);
  const json = await answer(deps, request, kind);
  reply.header('content-type', JSON_CONTENT_TYPE);
  return { status: 200, payload: json };
}

export function evaluationRoutes(deps: SdkDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    acceptRawBodies(app);

    for (const kind of ['flags', 'decide'] as const) {
      const url = `/${kind}`;
      app.post(
        url,
        {
          config: { public: { token: ['body', 'query'], emptyBodyIsObject: true, cors: true } },
          bodyLimit: BODY_LIMIT,
          ...app.earlyAnswers.hooks((request, reply, body) => early(deps, request, reply, body, kind), { bodyLimit: BODY_LIMIT }),
          schema: {
            tags: TAGS,
            summary: kind === 'flags' ? 'Evaluate every flag for one person (SDKs)' : 'Evaluate flags, legacy versions (SDKs)',
            description:
              kind === 'flags'
                ? 'Authenticated by the project token (`token`/`api_key` in the body or `?token=`). `?v=2`: the detail map ' +
                  '`{flags: {key: {key, enabled, variant, reason, metadata}}}`; no `v` or `v=1`: `{featureFlags, featureFlagPayloads}`. ' +
                  '`config=true` adds the config keys. See docs/sdk.md.'
                : '`v=4`: the detail map; `v=3`: every flag and payloads; `v=2`: enabled flags; `v=1`/none: the list of enabled keys. ' +
                  'Always with the config keys. See docs/sdk.md.',
            security: [{}],
            consumes: ['application/json', 'text/plain', 'application/x-www-form-urlencoded'],
            querystring: kind === 'flags' ? FlagsQuery : DecideQuery,
            body: FlagsBody,
            response: { 200: FlagsResponse },
          },
        },
        async (request, reply) => sendJson(reply, await answer(deps, request, kind)),
      );
    }
  };
}
