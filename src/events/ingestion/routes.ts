import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kernel } from '../../kernel/deps.ts';
import { ApiError, validationError } from '../../kernel/errors.ts';
import { DefinitionsSeen } from '../definitions/ingest.ts';
import { ingest, type EventProcessor, type IngestSetup } from '../pipeline.ts';
import { decodeBody } from './decode.ts';
import { tokenMissing, tokenUnknown } from './errors.ts';
import { INGESTION_LIMITS } from './limits.ts';
import { normalizeEvents, readEnvelope, type IngestionQuery as Query } from './payload.ts';
import { IngestionAccepted, IngestionBody, IngestionQuery } from './schemas.ts';
import type { ProjectTokens } from './tokens.ts';

/** The capture paths posthog-node (/batch/), posthog-js (/e/, /i/v0/e/) and older clients use. */
export const INGESTION_PATHS = ['/batch', '/capture', '/e', '/i/v0/e', '/track', '/engage'] as const;

const TAGS = ['ingestion'];
const EMPTY = Buffer.alloc(0);

function firstValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

function queryOf(request: FastifyRequest): Query & { compression?: string } {
  const raw = (request.query ?? {}) as Record<string, unknown>;
  return {
    token: firstValue(raw.token),
    api_key: firstValue(raw.api_key),
    sent_at: firstValue(raw.sent_at),
    _: firstValue(raw._),
    compression: firstValue(raw.compression),
  };
}

/** Browsers post events from any site (posthog-js): answer CORS for the caller's origin. */
function allowOrigin(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (!origin) return;
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-allow-credentials', 'true');
  reply.header('vary', 'Origin');
}

/** Database refusals caused by what the request carried, turned into answers instead of a 500. */
async function storeFailure(error: unknown, token: string, tokens: ProjectTokens): Promise<unknown> {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return error;
  if (code === '23503') {
    // A foreign key failed: when the token's project was deleted after it was looked up, the
    // token is simply unknown now. Any other cause stays the error it is.
    tokens.forget(token);
    return (await tokens.projectId(token)) === null ? tokenUnknown() : error;
  }
  if (code.startsWith('22') || code === '54001') {
    return validationError(`The events could not be stored: ${(error as Error).message}.`, null, 'invalid_input');
  }
  return error;
}

/**
 * POST /batch/, /capture/, /e/, /i/v0/e/ (and /track/, /engage/): events from the SDKs,
 * authenticated by the project token, stored before the 200. `processors` run after the events
 * are stored, in the same transaction.
 */
/** What ingestion is given: the kernel's, and the project tokens cache. */
export interface IngestionDeps extends Kernel {
  projectTokens: ProjectTokens;
}

export function ingestionRoutes(deps: IngestionDeps, processors: readonly EventProcessor[] = []) {
  return async function register(app: FastifyInstance): Promise<void> {
    const tokens = deps.projectTokens;
    const setup: IngestSetup = { definitionsSeen: new DefinitionsSeen(), processors };

    // Raw bytes in, whatever the content type says: decode.ts reads JSON, gzip, base64 and forms.
    // Only here: elsewhere the API keeps refusing non-JSON bodies with a 415.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INGESTION_LIMITS.maxBodyBytes }, (_request, body, done) => {
      done(null, body);
    });
    // The body and query schemas document the endpoints; the handler validates (see schemas.ts).
    app.setValidatorCompiler(() => () => true);
    app.addHook('onRequest', async (request, reply) => allowOrigin(request, reply));

    for (const url of INGESTION_PATHS) {
      app.post(
        url,
        {
          config: { public: true },
          bodyLimit: INGESTION_LIMITS.maxBodyBytes,
          schema: {
            tags: TAGS,
            summary: url === '/batch' ? 'Capture a batch of events' : `Capture events (${url}/)`,
            description:
              'Authenticated by the project token (`api_key`/`token` in the body, `?token=`, or `properties.token` of the first event). ' +
              'Answers `{"status": 1}` once every event is stored; a batch is all or nothing. See docs/ingestion.md.',
            security: [{}],
            consumes: ['application/json', 'text/plain', 'application/x-www-form-urlencoded'],
            querystring: IngestionQuery,
            body: IngestionBody,
            response: { 200: IngestionAccepted },
          },
        },
        async (request) => {
          const now = Date.now();
          const query = queryOf(request);
          const decoded = await decodeBody({
            body: Buffer.isBuffer(request.body) ? request.body : EMPTY,
            contentType: request.headers['content-type'],
            contentEncoding: firstValue(request.headers['content-encoding']),
            compression: query.compression,
          });
          const envelope = readEnvelope(decoded.payload, query, decoded.needsSanitizing, decoded.jsonLength);
          if (envelope.token === null) throw tokenMissing();
          const projectId = await tokens.projectId(envelope.token);
          if (projectId === null) throw tokenUnknown();
          const events = normalizeEvents(envelope, now);
          try {
            await ingest(deps, projectId, events, setup);
          } catch (error) {
            throw await storeFailure(error, envelope.token, tokens);
          }
          return { status: 1 as const };
        },
      );

      app.options(url, { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
        reply.header('access-control-allow-methods', 'POST, OPTIONS');
        reply.header(
          'access-control-allow-headers',
          firstValue(request.headers['access-control-request-headers']) ?? 'Content-Type, Content-Encoding',
        );
        reply.header('access-control-max-age', '86400');
        return reply.code(204).send();
      });

      app.route({
        method: ['GET', 'PUT', 'PATCH', 'DELETE'],
        url,
        config: { public: true },
        schema: { hide: true },
        handler: async (request, reply) => {
          reply.header('allow', 'POST, OPTIONS');
          throw new ApiError(405, 'invalid_request', 'method_not_allowed', `Method "${request.method}" not allowed.`);
        },
      });
    }
  };
}
