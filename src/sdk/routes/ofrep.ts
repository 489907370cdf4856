/**
 * OFREP endpoints (OpenFeature Remote Evaluation Protocol): `POST /ofrep/v1/evaluate/flags/{key}`
 * (one flag) and `POST /ofrep/v1/evaluate/flags` (every live flag; `ETag`, and 304 for a matching
 * `If-None-Match`). Authenticated by the project token: `Authorization: Bearer <phc_…>` or
 * `?token=<phc_…>`. See src/sdk/ofrep.ts and docs/sdk.md.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptRawBodies } from '../../public/body.ts';
import { ApiError } from '../../kernel/errors.ts';
import { sendJson } from '../../kernel/http/send-json.ts';
import { sendRevalidated, weakEtag } from '../../kernel/http/etag.ts';
import type { SdkDeps } from '../deps.ts';
import { evaluateFor } from '../evaluate.ts';
import { BODY_LIMIT, readBody } from '../http.ts';
import { OfrepFailure, ofrepResult, readOfrepContext } from '../ofrep.ts';
import { OfrepKeyParams, OfrepRequest } from '../schemas.ts';

const TAGS = ['ofrep'];
export const OFREP_FLAG = '/ofrep/v1/evaluate/flags/:key';
export const OFREP_BULK = '/ofrep/v1/evaluate/flags';

async function readRequestBody(request: FastifyRequest): Promise<unknown> {
  try {
    return await readBody(request);
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw new OfrepFailure(400, 'PARSE_ERROR', error.message);
    throw error;
  }
}

const security = [{}];
const PUBLIC = { token: ['header', 'query'], emptyBodyIsObject: true, cors: true } as const;

export function ofrepRoutes(deps: SdkDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    acceptRawBodies(app);

    const fail = (reply: FastifyReply, error: unknown, key?: string) => {
      if (error instanceof OfrepFailure) return reply.code(error.status).send(error.body(key));
      throw error;
    };

    app.post(
      OFREP_FLAG,
      {
        config: { public: PUBLIC },
        bodyLimit: BODY_LIMIT,
        schema: {
          tags: TAGS,
          summary: 'Evaluate one flag (OFREP)',
          description:
            'Project token as `Authorization: Bearer <phc_…>` or `?token=`. `{context: {targetingKey, ...}}` → ' +
            '`{key, value, reason, variant, metadata}`; unknown flag → 404 `FLAG_NOT_FOUND`; bad context → 400.',
          security,
          params: OfrepKeyParams,
          body: OfrepRequest,
        },
      },
      async (request, reply) => {
        const key = (request.params as { key: string }).key;
        const projectId = request.publicProject;
        try {
          const input = readOfrepContext(await readRequestBody(request));
          const view = await deps.cache.view(projectId);
          if (!view.byKey.has(key)) throw new OfrepFailure(404, 'FLAG_NOT_FOUND', `No flag with key "${key}" in this project.`);
          const evaluation = await evaluateFor(deps.pool, view, input, { onlyKeys: [key] }, request.log, deps.persons);
          const [only] = evaluation.flags;
          return sendJson(reply, JSON.stringify(ofrepResult(only.live, only.result)));
        } catch (error) {
          return fail(reply, error, key);
        }
      },
    );

    app.post(
      OFREP_BULK,
      {
        config: { public: PUBLIC },
        bodyLimit: BODY_LIMIT,
        schema: {
          tags: TAGS,
          summary: 'Evaluate every flag (OFREP bulk)',
          description: '`{flags: [result…]}` with an `ETag`; a matching `If-None-Match` → 304.',
          security,
          body: OfrepRequest,
        },
      },
      async (request, reply) => {
        const projectId = request.publicProject;
        try {
          const input = readOfrepContext(await readRequestBody(request));
          const view = await deps.cache.view(projectId);
          const evaluation = await evaluateFor(deps.pool, view, input, {}, request.log, deps.persons);
          const flags = evaluation.flags
            .map(({ live, result }) => ofrepResult(live, result))
            .sort((a, b) => String(a.key).localeCompare(String(b.key)));
          const json = JSON.stringify({ flags });
          return sendRevalidated(request, reply, json, weakEtag(json));
        } catch (error) {
          return fail(reply, error);
        }
      },
    );
  };
}
