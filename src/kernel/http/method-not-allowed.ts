import type { FastifyContextConfig, FastifyInstance, HTTPMethods } from 'fastify';
import { methodNotAllowed } from '../errors.ts';

const METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The `Allow` header of a path offering `offered` (HEAD comes with GET; OPTIONS always). */
export function allowHeader(offered: readonly string[]): string {
  return [...offered, ...(offered.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
}

/**
 * Answers 405 (with `Allow`) for the methods `url` does not offer, instead of a misleading 404.
 * The route takes `config`: on an authenticated path authentication still runs first (an anonymous
 * caller gets its 401); a public path (`config.public`) answers the 405 without any.
 */
export function refuseOtherMethods(app: FastifyInstance, url: string, offered: readonly string[], config: FastifyContextConfig = {}): void {
  const allow = allowHeader(offered);
  const others = METHODS.filter((m) => !offered.includes(m));
  if (others.length === 0) return;
  app.route({
    method: others,
    url,
    config,
    schema: { hide: true },
    handler: async (request, reply) => {
      reply.header('allow', allow);
      throw methodNotAllowed(request.method);
    },
  });
}

/** `refuseOtherMethods` for each path of a router, from one table of the methods each offers. */
export function refuseOtherMethodsOn(app: FastifyInstance, offeredByUrl: Readonly<Record<string, readonly string[]>>): void {
  for (const [url, offered] of Object.entries(offeredByUrl)) refuseOtherMethods(app, url, offered);
}
