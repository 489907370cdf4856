import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kernel } from '../../kernel/deps.ts';
import { projectTokenUnknown, validationError } from '../../kernel/errors.ts';
import { acceptRawBodies, firstValue, readPublicBody } from '../../public/body.ts';
import type { ProjectTokens } from '../../public/tokens.ts';
import { DefinitionsSeen } from '../definitions/ingest.ts';
import { ingest, type EventProcessor, type IngestSetup } from '../pipeline.ts';
import { INGESTION_LIMITS } from './limits.ts';
import { normalizeEvents, readEnvelope, type IngestionQuery as Query } from './payload.ts';
import { IngestionAccepted, IngestionBody, IngestionQuery } from './schemas.ts';

/** The capture paths posthog-node (/batch/), posthog-js (/e/, /i/v0/e/) and older clients use. */
export const INGESTION_PATHS = ['/batch', '/capture', '/e', '/i/v0/e', '/track', '/engage'] as const;

const TAGS = ['ingestion'];

function queryOf(request: FastifyRequest): Query {
  const raw = (request.query ?? {}) as Record<string, unknown>;
  return { sent_at: firstValue(raw.sent_at), _: firstValue(raw._) };
}

/** Database refusals caused by what the request carried, turned into answers instead of a 500. */
async function storeFailure(error: unknown, token: string, tokens: ProjectTokens): Promise<unknown> {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return error;
  if (code === '23503') {
    // A foreign key failed: when the token's project was deleted after it was looked up, the
    // token is simply unknown now. Any other cause stays the error it is.
    tokens.forget(token);
    return (await tokens.projectId(token)) === null ? projectTokenUnknown() : error;
  }
  if (code.startsWith('22') || code === '54001') {
    return validationError(`The events could not be stored: ${(error as Error).message}.`, null, 'invalid_input');
  }
  return error;
}

/** What ingestion is given: the kernel's, and the project tokens cache. */
export interface IngestionDeps extends Kernel {
  projectTokens: ProjectTokens;
}

/**
 * POST /batch/, /capture/, /e/, /i/v0/e/ (and /track/, /engage/): events from the SDKs,
 * authenticated by the project token, stored before the 200. `processors` run after the events
 * are stored, in the same transaction.
 */
export function ingestionRoutes(deps: IngestionDeps, processors: readonly EventProcessor[] = []) {
  return async function register(app: FastifyInstance): Promise<void> {
    const tokens = deps.projectTokens;
    const setup: IngestSetup = { definitionsSeen: new DefinitionsSeen(), processors };

    // Raw bytes in, whatever the content type says: decode.ts reads JSON, gzip, base64 and forms.
    // The body and query schemas document the endpoints; the handler validates (see schemas.ts).
    acceptRawBodies(app);

    for (const url of INGESTION_PATHS) {
      app.post(
        url,
        {
          config: { public: { token: ['body', 'query', 'event'], cors: true } },
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
          const decoded = await readPublicBody(request);
          const envelope = readEnvelope(decoded.payload, queryOf(request), decoded.needsSanitizing, decoded.jsonLength);
          const projectId = request.publicProject;
          const events = normalizeEvents(envelope, now);
          try {
            await ingest(deps, projectId, events, setup);
          } catch (error) {
            throw await storeFailure(error, request.publicToken, tokens);
          }
          return { status: 1 as const };
        },
      );
    }
  };
}
