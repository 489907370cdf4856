/** HTTP plumbing the public SDK endpoints share: raw bodies in any encoding, CORS for browsers. */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { decodeBody } from '../events/ingestion/decode.ts';
import { INGESTION_LIMITS } from '../events/ingestion/limits.ts';
import { ApiError } from '../kernel/errors.ts';
import { storableValue } from '../kernel/http/storable-text.ts';

export const BODY_LIMIT = INGESTION_LIMITS.maxBodyBytes;

/**
 * Inside an encapsulated plugin: every body arrives as raw bytes whatever its content type, to be
 * read by `readBody` (JSON, gzip, base64, forms: what posthog-js and posthog-node send). Route
 * schemas only document; handlers validate.
 */
export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));
  app.setValidatorCompiler(() => () => true);
}

function firstValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/**
 * The decoded body; an empty body reads as `{}`. Text PostgreSQL cannot store (NUL, lone
 * surrogates: in a distinct id, a property value) becomes U+FFFD, as ingestion stores it.
 */
export async function readBody(request: FastifyRequest): Promise<unknown> {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (body.toString('utf8').trim() === '') return {};
  const decoded = await decodeBody({
    body,
    contentType: request.headers['content-type'],
    contentEncoding: firstValue(request.headers['content-encoding']),
    compression: firstValue((request.query as Record<string, unknown> | undefined)?.compression),
  });
  return decoded.needsSanitizing ? storableValue(decoded.payload) : decoded.payload;
}

/** Browsers call these endpoints from any site (posthog-js, the OFREP web provider). */
export function allowCors(app: FastifyInstance, urls: readonly string[], methods: string): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (!origin) return;
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-credentials', 'true');
    reply.header('access-control-expose-headers', 'ETag');
    reply.header('vary', 'Origin');
  });
  for (const url of urls) {
    app.options(url, { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      reply.header('access-control-allow-methods', methods);
      reply.header(
        'access-control-allow-headers',
        firstValue(request.headers['access-control-request-headers']) ?? 'Content-Type, Content-Encoding, Authorization, If-None-Match',
      );
      reply.header('access-control-max-age', '86400');
      return reply.code(204).send();
    });
  }
}

const ALL_METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** 405 with `Allow` for the other methods of a public path (no authentication runs first). */
export function refuseOtherPublicMethods(app: FastifyInstance, url: string, offered: HTTPMethods[]): void {
  const others = ALL_METHODS.filter((method) => !offered.includes(method));
  const allow = [...offered, ...(offered.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  app.route({
    method: others,
    url,
    config: { public: true },
    schema: { hide: true },
    handler: async (request, reply) => {
      reply.header('allow', allow);
      throw new ApiError(405, 'invalid_request', 'method_not_allowed', `Method "${request.method}" not allowed.`);
    },
  });
}
