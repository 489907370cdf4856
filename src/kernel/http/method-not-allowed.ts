import type { FastifyInstance, HTTPMethods } from 'fastify';
import { ApiError } from '../errors.ts';

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Answers 405 (with `Allow`) for the methods `url` does not offer, instead of a misleading 404.
 * Authentication still runs first: an anonymous caller gets its 401.
 */
export function refuseOtherMethods(app: FastifyInstance, url: string, offered: HTTPMethods[]): void {
  const allow = [...offered, ...(offered.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  const others = METHODS.filter((m) => !offered.includes(m));
  if (others.length === 0) return;
  app.route({
    method: others,
    url,
    schema: { hide: true },
    handler: async (request, reply) => {
      reply.header('allow', allow);
      throw new ApiError(405, 'invalid_request', 'method_not_allowed', `Method "${request.method}" not allowed.`);
    },
  });
}
