import type { FastifyContextConfig, FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { completeDocument, PROJECT_SECRET_SCHEME, PROJECT_TOKEN_SCHEME, type OpenApiDocument } from './document.ts';

const SECURITY_SCHEME = 'PersonalAPIKeyAuth';
const SESSION_SCHEME = 'SessionCookieAuth';

/**
 * Every route's scope (from its config) goes into the document as its security requirement and
 * as `x-required-scope`, so the document and the checks cannot drift apart. The session cookie is
 * the alternative (it holds every scope; its writes need `X-CSRFToken`).
 */
function documentScope(route: RouteOptions): void {
  const config: FastifyContextConfig = route.config ?? {};
  if (route.url.startsWith('/api/schema')) {
    route.config = { ...config, public: true };
    return;
  }
  if (config.public) return;
  const schema = { ...(route.schema ?? {}) } as Record<string, unknown>;
  schema.security = [{ [SECURITY_SCHEME]: config.scope ? [config.scope] : [] }, { [SESSION_SCHEME]: [] }];
  if (config.scope) schema['x-required-scope'] = config.scope;
  route.schema = schema;
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', documentScope);
  await app.register(swagger, {
    transformObject: (documentObject) => completeDocument((documentObject as { openapiObject: OpenApiDocument }).openapiObject),
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
          [PROJECT_SECRET_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            description: "The project's secret API token (phs_…); it names its project. Only the flag definitions routes accept it.",
          },
          [PROJECT_TOKEN_SCHEME]: {
            type: 'apiKey',
            in: 'query',
            name: 'token',
            description:
              'The public project token (phc_…), for the SDK routes. Sent as the `token` query parameter, or in the body as ' +
              '`token` or `api_key` (`/flags`, `/decide`, `/batch`, `/e`, `/i/v0/e`); OFREP also takes it as `Authorization: Bearer`. ' +
              'None → 401 `not_authenticated`; unknown → 401 `authentication_failed`.',
          },
          [SESSION_SCHEME]: {
            type: 'apiKey',
            in: 'cookie',
            name: 'bellwether_session',
            description:
              'A signed-in person (POST /api/login/). Writes must also send the `bellwether_csrftoken` cookie\'s value as `X-CSRFToken`. ' +
              'Ignored when an Authorization header is sent.',
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/schema/swagger-ui' });
  app.get('/api/schema', { schema: { hide: true } }, async () => app.swagger());
}

/** The OpenAPI document of every route registered after it: app.ts registers it right after the kernel. */
export const openApi = fp(async (app) => registerOpenApi(app), { name: 'openapi', fastify: '5.x' });
