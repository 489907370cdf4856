/** Bodies of the public endpoints: raw bytes in, decoded once (JSON, gzip, base64, forms). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeBody, type DecodedBody } from './decode.ts';
import { PUBLIC_BODY_LIMITS } from './limits.ts';
import { publicRouteOf } from './route.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The decoded body, once `readPublicBody` has read it (the token hook may have). */
    publicBody: DecodedBody | null;
  }
}

const EMPTY = Buffer.alloc(0);
const EMPTY_OBJECT: DecodedBody = { payload: {}, needsSanitizing: false, jsonLength: 0 };

/**
 * Inside an encapsulated plugin: every body arrives as raw bytes whatever its content type, to be
 * read by `readPublicBody` (what posthog-js and posthog-node send). Only there: elsewhere the API
 * keeps refusing non-JSON bodies with a 415. Route schemas only document; handlers validate.
 */
export function acceptRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PUBLIC_BODY_LIMITS.maxBodyBytes }, (_request, body, done) => done(null, body));
  app.setValidatorCompiler(() => () => true);
}

export function firstValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/** Nothing but ASCII white space (a body of other bytes is decoded and judged by the decoder). */
function isBlank(body: Buffer): boolean {
  for (const byte of body) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return false;
  return true;
}

/**
 * The request's body decoded, read once per request. An empty body is a 400, unless the route
 * says `emptyBodyIsObject` (then `{}`).
 */
export async function readPublicBody(request: FastifyRequest): Promise<DecodedBody> {
  if (request.publicBody) return request.publicBody;
  const body = Buffer.isBuffer(request.body) ? request.body : EMPTY;
  const decoded =
    publicRouteOf(request)?.emptyBodyIsObject && isBlank(body)
      ? EMPTY_OBJECT
      : await decodeBody({
          body,
          contentType: request.headers['content-type'],
          contentEncoding: firstValue(request.headers['content-encoding']),
          compression: firstValue((request.query as Record<string, unknown> | undefined)?.compression),
        });
  request.publicBody = decoded;
  return decoded;
}
