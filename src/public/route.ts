import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import type { PublicRoute } from '../kernel/http/public-route.ts';

/** The route's public face when it declares one as an object (`config.public: {…}`), else null. */
export function publicRouteOf(request: FastifyRequest): PublicRoute | null {
  return publicConfig(request.routeOptions.config);
}

export function publicConfig(config: FastifyContextConfig | undefined): PublicRoute | null {
  const declared = config?.public;
  return typeof declared === 'object' && declared !== null ? declared : null;
}
