import type { FastifyReply } from 'fastify';

/**
 * Sends JSON that is already serialised (from a cache of rendered objects), as text or UTF-8 bytes,
 * bypassing the route's response serializer; the route's response schema still documents the shape.
 */
export function sendJson(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.header('content-type', 'application/json; charset=utf-8').send(json);
}
