/** Entity tags for bodies rendered once and served many times (SDK definitions, OFREP, the survey feed). */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** `W/"<hash of the body>"`. */
export function weakEtag(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
}

/** Whether an `If-None-Match` header names this entity tag (weak comparison; `*` matches anything). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//i, '');
  const wanted = opaque(etag);
  return header.split(',').some((candidate) => candidate.trim() === '*' || opaque(candidate) === wanted);
}

/**
 * Sends an already serialised body with its ETag, for clients to revalidate every time
 * (`private, must-revalidate`), or a 304 when `If-None-Match` names that tag. The route's response
 * schema still documents the shape; the serializer is bypassed.
 */
export function sendRevalidated(
  request: FastifyRequest,
  reply: FastifyReply,
  body: string,
  etag: string,
  contentType: string = JSON_CONTENT_TYPE,
): FastifyReply {
  reply.header('etag', etag).header('cache-control', 'private, must-revalidate');
  const ifNoneMatch = request.headers['if-none-match'];
  if (etagMatches(typeof ifNoneMatch === 'string' ? ifNoneMatch : undefined, etag)) return reply.code(304).send();
  return reply.header('content-type', contentType).send(body);
}
