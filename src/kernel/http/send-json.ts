import type { FastifyReply } from 'fastify';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Sends JSON that is already serialised (from a cache of rendered objects), as text or UTF-8 bytes,
 * bypassing the route's response serializer; the route's response schema still documents the shape.
 */
export function sendJson(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.header('content-type', JSON_CONTENT_TYPE).send(json);
}
