/** The decoded body of an SDK request, as the SDK endpoints read it. */
import type { FastifyRequest } from 'fastify';
import { storableValue } from '../kernel/http/storable-text.ts';
import { readPublicBody } from '../public/body.ts';
import { PUBLIC_BODY_LIMITS } from '../public/limits.ts';

export const BODY_LIMIT = PUBLIC_BODY_LIMITS.maxBodyBytes;

/**
 * The decoded body (the routes say `emptyBodyIsObject`: an empty body reads as `{}`). Text
 * PostgreSQL cannot store (NUL, lone surrogates: in a distinct id, a property value) becomes
 * U+FFFD, as ingestion stores it.
 */
export async function readBody(request: FastifyRequest): Promise<unknown> {
  const decoded = await readPublicBody(request);
  return decoded.needsSanitizing ? storableValue(decoded.payload) : decoded.payload;
}
