/**
 * The public surface's hooks: what a route declares in `config.public` (PublicRoute) is answered
 * here, once for every public endpoint, the way the session hook answers for the console.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { projectTokenMissing, projectTokenUnknown } from '../kernel/errors.ts';
import { refuseOtherMethods } from '../kernel/http/method-not-allowed.ts';
import type { PublicRoute } from '../kernel/http/public-route.ts';
import { firstValue } from './body.ts';
import { publicConfig, publicRouteOf } from './route.ts';
import { readProjectToken } from './token.ts';
import type { ProjectTokens } from './tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The project the request's project token names (routes with `config.public.token`). */
    publicProject: number;
    /** That token, as sent. */
    publicToken: string;
  }
}

/** Headers a browser may send when none are asked for in the preflight. */
const DEFAULT_ALLOWED_HEADERS = 'Content-Type, Content-Encoding, Authorization, If-None-Match';

/** The OPTIONS and 405 routes made here, so that making them does not make more. */
const generated = new WeakSet<PublicRoute>();

function allowOrigin(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (!origin) return;
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-allow-credentials', 'true');
  reply.header('access-control-expose-headers', 'ETag');
  reply.header('vary', 'Origin');
}

/** For each public route: the preflight (with `cors`) and 405 for the path's other methods. */
function addCompanionRoutes(this: FastifyInstance, route: RouteOptions): void {
  const declared = publicConfig(route.config);
  if (declared === null || generated.has(declared)) return;
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((method) => method !== 'HEAD');
  if (methods.length === 0) return;
  const url = (route as RouteOptions & { routePath?: string }).routePath ?? route.url;
  const companion: PublicRoute = { cors: declared.cors };
  generated.add(companion);
  if (declared.cors) {
    const allowMethods = [...methods, 'OPTIONS'].join(', ');
    this.options(url, { config: { public: companion }, schema: { hide: true } }, async (request, reply) => {
      reply.header('access-control-allow-methods', allowMethods);
      reply.header('access-control-allow-headers', firstValue(request.headers['access-control-request-headers']) ?? DEFAULT_ALLOWED_HEADERS);
      reply.header('access-control-max-age', '86400');
      return reply.code(204).send();
    });
  }
  refuseOtherMethods(this, url, methods, { public: companion });
}

/**
 * Installs the public surface on the app: routes registered after this get their companion
 * routes, CORS headers and the project token check.
 */
export function installPublicSurface(app: FastifyInstance, tokens: ProjectTokens): void {
  app.decorateRequest('publicProject', null as unknown as number);
  app.decorateRequest('publicToken', null as unknown as string);
  app.decorateRequest('publicBody', null);

  app.addHook('onRoute', addCompanionRoutes);

  app.addHook('onRequest', (request, reply, done) => {
    if (publicRouteOf(request)?.cors) allowOrigin(request, reply);
    done();
  });

  // After the body is in: the token may be inside it.
  app.addHook('preHandler', (request, _reply, done) => {
    if (!publicRouteOf(request)?.token) {
      done();
      return;
    }
    identifyPublicProject(request, tokens).then(() => done(), done);
  });
}

/**
 * The project of the route's token carriers (`config.public.token`) into `request.publicProject`:
 * what the preHandler hook does, and what an early answer (kernel/http/early-answer.ts) does first.
 */
export async function identifyPublicProject(request: FastifyRequest, tokens: ProjectTokens): Promise<void> {
  const carriers = publicRouteOf(request)?.token;
  if (!carriers) return;
  const token = await readProjectToken(request, carriers);
  if (token === null) throw projectTokenMissing();
  const projectId = await tokens.projectId(token);
  if (projectId === null) throw projectTokenUnknown();
  request.publicProject = projectId;
  request.publicToken = token;
}
