import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Pool } from './db/pool.ts';
import { registerOpenApi } from './openapi/plugin.ts';
import { Authenticator } from './platform/auth/authenticator.ts';
import { installAuthentication } from './platform/auth/hook.ts';
import { installErrorHandling } from './platform/http/error-handler.ts';
import { installEmptyBodyDefault, installJsonBodyParser } from './platform/http/json-body.ts';
import { validatorCompiler } from './platform/http/validator.ts';
import { healthRoutes } from './platform/health/routes.ts';
import { platformRoutes } from './platform/routes.ts';
import { codegenRoutes } from './events/codegen/routes.ts';
import { eventDefinitionRoutes } from './events/definitions/routes.ts';
import { ingestionRoutes } from './events/ingestion/routes.ts';
import { groupRoutes } from './events/groups/routes.ts';
import { personRoutes } from './events/persons/routes.ts';
import { propertyDefinitionRoutes } from './events/property-definitions/routes.ts';
import { schemaRoutes } from './events/schemas/routes.ts';
import { cohortRoutes } from './cohorts/routes.ts';
import { dashboardRoutes } from './dashboards/routes.ts';
import { FlagCache } from './flags/cache.ts';
import { flagActionRoutes } from './flags/actions/routes.ts';
import { featureFlagRoutes } from './flags/routes.ts';
import { ChangeBus } from './platform/changes/bus.ts';
import { createSdk } from './sdk/index.ts';

export interface AppOptions {
  pool: Pool;
  /** The database the pool reaches; its change notices keep the caches of every process current. */
  databaseUrl: string | null;
  /** A pino logger; none means silent (tests). */
  logger?: FastifyBaseLogger;
}

/** What every product area's routes get: the database and the shared authenticator. */
export interface AppDeps {
  pool: Pool;
  authenticator: Authenticator;
  bus: ChangeBus;
  flagCache: FlagCache;
}

export type App = FastifyInstance;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    bodyLimit: 10 * 1024 * 1024,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  const bus = new ChangeBus(options.databaseUrl, (message) => app.log.warn(message));
  const deps: AppDeps = {
    pool: options.pool,
    authenticator: new Authenticator(options.pool, bus),
    bus,
    flagCache: new FlagCache(options.pool, bus),
  };
  await bus.start();
  app.addHook('onClose', async () => bus.close());

  app.setValidatorCompiler(validatorCompiler);
  installJsonBodyParser(app);
  installEmptyBodyDefault(app);
  installErrorHandling(app);
  // Once closing, every response says `Connection: close`: otherwise the keep-alive connection of
  // a request in flight when close began stays open and holds app.close() for the keep-alive
  // timeout (72 s).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
  });
  await registerOpenApi(app);
  installAuthentication(app, deps.authenticator);

  await app.register(healthRoutes(deps.pool));
  await app.register(platformRoutes(deps));
  await app.register(featureFlagRoutes(deps), { prefix: '/api/projects/:project_id/feature_flags' });
  await app.register(flagActionRoutes(deps), { prefix: '/api/projects/:project_id/feature_flags' });
  await app.register(cohortRoutes(deps), { prefix: '/api/projects/:project_id/cohorts' });
  await app.register(dashboardRoutes(deps), { prefix: '/api/projects/:project_id/dashboards' });
  const sdk = createSdk(deps);
  await app.register(ingestionRoutes(deps, sdk.processors));
  await app.register(sdk.routes);
  await app.register(personRoutes(deps), { prefix: '/api/projects/:project_id/persons' });
  await app.register(groupRoutes(deps), { prefix: '/api/projects/:project_id' });
  await app.register(eventDefinitionRoutes(deps), { prefix: '/api/projects/:project_id/event_definitions' });
  await app.register(codegenRoutes(deps), { prefix: '/api/projects/:project_id/event_definitions' });
  await app.register(propertyDefinitionRoutes(deps), { prefix: '/api/projects/:project_id/property_definitions' });
  await app.register(schemaRoutes(deps), { prefix: '/api/projects/:project_id' });
  return app;
}
