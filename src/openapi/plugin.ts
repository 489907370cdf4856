import type { FastifyContextConfig, FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

const SECURITY_SCHEME = 'PersonalAPIKeyAuth';

/**
 * Every route's scope (from its config) goes into the document as its security requirement and
 * as `x-required-scope`, so the document and the checks cannot drift apart.
 */
function documentScope(route: RouteOptions): void {
  const config: FastifyContextConfig = route.config ?? {};
  if (route.url.startsWith('/api/schema')) {
    route.config = { ...config, public: true };
    return;
  }
  if (config.public) return;
  const schema = { ...(route.schema ?? {}) } as Record<string, unknown>;
  schema.security = [{ [SECURITY_SCHEME]: config.scope ? [config.scope] : [] }];
  if (config.scope) schema['x-required-scope'] = config.scope;
  route.schema = schema;
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', documentScope);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Bellwether',
        version: '0.1.0',
        description: "PostHog's project API for feature flags, surveys and event definitions, self-hosted.",
      },
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'A personal API key (phx_…)' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/schema/swagger-ui' });
  app.get('/api/schema', { schema: { hide: true } }, async () => app.swagger());
}
