import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import cookie from '@fastify/cookie';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DatabaseTimeouts, Pool } from './db/pool.ts';
import type { PlatformDeps } from './deps.ts';
import type { FlagDeps } from './flags/deps.ts';
import type { SurveyDeps } from './surveys/deps.ts';
import type { SdkSetupDeps } from './sdk/deps.ts';
import { UnitsOfWork } from './db/unit-of-work.ts';
import { registerOpenApi } from './openapi/plugin.ts';
import { Authenticator, DEFAULT_SESSION_LIMITS, type SessionLimits } from './accounts/auth/authenticator.ts';
import { installAuthentication } from './accounts/auth/hook.ts';
import { installErrorHandling } from './kernel/http/error-handler.ts';
import { installEmptyBodyDefault, installJsonBodyParser } from './kernel/http/json-body.ts';
import { installQueryTextCheck } from './kernel/http/query-text.ts';
import { validatorCompiler } from './kernel/http/validator.ts';
import { installRequestMetrics } from './kernel/http/metrics.ts';
import { watchPool } from './kernel/metrics/metrics.ts';
import { healthRoutes } from './kernel/health/routes.ts';
import { platformRoutes } from './accounts/routes.ts';
import { sessionRoutes } from './accounts/sessions/routes.ts';
import { DEFAULT_THROTTLE, type ThrottleRule } from './accounts/sessions/throttle.ts';
import { codegenRoutes } from './events/codegen/routes.ts';
import { eventDefinitionRoutes } from './events/definitions/routes.ts';
import { eventListRoutes } from './events/list/routes.ts';
import { ingestionRoutes, type IngestionDeps } from './events/ingestion/routes.ts';
import { groupRoutes } from './events/groups/routes.ts';
import { personRoutes } from './events/persons/routes.ts';
import { propertyDefinitionRoutes } from './events/property-definitions/routes.ts';
import { schemaRoutes } from './events/schemas/routes.ts';
import { cohortRoutes } from './cohorts/routes.ts';
import { consoleRoutes } from './console/plugin.ts';
import { dashboardRoutes } from './dashboards/routes.ts';
import { FlagCache } from './flags/cache.ts';
import { flagActionRoutes } from './flags/actions/routes.ts';
import { flagLifecycleRoutes } from './flags/actions/lifecycle-routes.ts';
import { flagBulkRoutes } from './flags/actions/bulk-routes.ts';
import { flagCopyRoutes } from './flags/actions/copy-routes.ts';
import { featureFlagRoutes } from './flags/routes.ts';
import { ChangeBus, type ChangeBusOptions } from './kernel/changes/bus.ts';
import { ProjectTokens } from './events/ingestion/tokens.ts';
import { createSdk } from './sdk/index.ts';
import type { LastCalledWriter } from './sdk/last-called.ts';
import { createSurveys } from './surveys/index.ts';

export interface AppOptions {
  pool: Pool;
  /**
   * A direct (session) connection to the pool's database, for LISTEN: its change notices keep the
   * caches of every process current. null: no notices are heard (single-process tests).
   */
  databaseUrl: string | null;
  /** A pino logger; none means silent (tests). */
  logger?: FastifyBaseLogger;
  /**
   * Milliseconds between rounds of the periodic survey work; 0 or absent = no timer (tests run
   * rounds themselves with `app.surveyJobs.runOnce`). main.ts passes SURVEY_JOBS_INTERVAL_MS.
   */
  surveyJobsIntervalMs?: number;
  /**
   * TRUST_PROXY, as Fastify's `trustProxy`: only then are `X-Forwarded-Proto` (Secure cookies) and
   * `X-Forwarded-For` (the client address sign-in throttling counts) believed. Default: not.
   */
  trustProxy?: boolean | string[];
  /** SITE_URL: the public base URL for links; absent: each request's own origin. */
  siteUrl?: string | null;
  sessionLimits?: SessionLimits;
  /** Milliseconds between writes of buffered `last_called_at` times; default 2 000 (tests call `app.lastCalled.flush()`). */
  lastCalledIntervalMs?: number;
  loginThrottle?: ThrottleRule;
  /** The built console to serve at `/`; default web/dist. */
  consoleDir?: string;
  /** The pool's timeouts, also used by the change-notice listener's own connection. */
  databaseTimeouts?: DatabaseTimeouts;
  /** The change-notice listener's heartbeat and reconnection pace (tests shorten them). */
  changeBus?: Omit<ChangeBusOptions, 'log' | 'timeouts'>;
  /** Told of every route as it is registered (the hostile-input tests enumerate the API with it). */
  onRoute?: (route: RouteOptions) => void;
}

/** Everything the areas are given, composed here: each area declares the part it uses (deps.ts and its own folder). */
type AppDeps = PlatformDeps & FlagDeps & SurveyDeps & SdkSetupDeps & IngestionDeps;

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** Buffered `last_called_at` times (tests write them at once with `flush`). */
    lastCalled: LastCalledWriter;
    /** The change-notice bus (tests watch its listener connection). */
    changeBus: ChangeBus;
  }
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    bodyLimit: 10 * 1024 * 1024,
    forceCloseConnections: 'idle',
    trustProxy: options.trustProxy ?? false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const bus = new ChangeBus(options.databaseUrl, {
    ...options.changeBus,
    timeouts: options.databaseTimeouts,
    log: (message) => app.log.warn(message),
  });
  const { onRoute } = options;
  if (onRoute) app.addHook('onRoute', (route) => onRoute(route as RouteOptions));
  const deps: AppDeps = {
    pool: options.pool,
    units: new UnitsOfWork(options.pool, (error) => app.log.error({ err: error }, 'an effect of a committed write failed')),
    authenticator: new Authenticator(options.pool, bus, options.sessionLimits ?? DEFAULT_SESSION_LIMITS),
    bus,
    flagCache: new FlagCache(options.pool, bus),
    projectTokens: new ProjectTokens(options.pool, bus),
    accounts: { siteUrl: options.siteUrl ?? null, throttle: options.loginThrottle ?? DEFAULT_THROTTLE },
  };
  await bus.start();
  app.decorate('changeBus', bus);
  app.addHook('onClose', async () => bus.close());

  app.setValidatorCompiler(validatorCompiler);
  installJsonBodyParser(app);
  installEmptyBodyDefault(app);
  installQueryTextCheck(app);
  installErrorHandling(app);
  installRequestMetrics(app);
  watchPool(options.pool);
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
  // Before the authentication hook: it reads the session cookie.
  await app.register(cookie);
  installAuthentication(app, deps.authenticator);

  await app.register(healthRoutes(deps.pool));
  await app.register(sessionRoutes(deps));
  await app.register(platformRoutes(deps));
  await app.register(featureFlagRoutes(deps), { prefix: '/api/projects/:project_id/feature_flags' });
  await app.register(flagActionRoutes(deps), { prefix: '/api/projects/:project_id/feature_flags' });
  await app.register(flagLifecycleRoutes(deps), { prefix: '/api/projects/:project_id/feature_flags' });
  await app.register(flagBulkRoutes(deps), { prefix: '/api/projects/:project_id/feature_flags' });
  await app.register(flagCopyRoutes(deps));
  await app.register(cohortRoutes(deps), { prefix: '/api/projects/:project_id/cohorts' });
  await app.register(dashboardRoutes(deps), { prefix: '/api/projects/:project_id/dashboards' });
  const sdk = createSdk(deps, { log: app.log, lastCalledIntervalMs: options.lastCalledIntervalMs });
  const surveys = createSurveys(deps, { log: app.log, jobsIntervalMs: options.surveyJobsIntervalMs ?? 0 });
  await app.register(ingestionRoutes(deps, [...sdk.processors, ...surveys.processors]));
  await app.register(sdk.routes);
  await app.register(surveys.routes);
  app.decorate('surveyJobs', surveys.jobs);
  app.decorate('lastCalled', sdk.lastCalled);
  app.addHook('onReady', async () => sdk.lastCalled.start());
  app.addHook('onClose', async () => sdk.lastCalled.stop());
  app.addHook('onReady', async () => surveys.jobs.start());
  app.addHook('onClose', async () => surveys.jobs.stop());
  await app.register(personRoutes(deps), { prefix: '/api/projects/:project_id/persons' });
  await app.register(eventListRoutes(deps), { prefix: '/api/projects/:project_id/events' });
  await app.register(groupRoutes(deps), { prefix: '/api/projects/:project_id' });
  await app.register(eventDefinitionRoutes(deps), { prefix: '/api/projects/:project_id/event_definitions' });
  await app.register(codegenRoutes(deps), { prefix: '/api/projects/:project_id/event_definitions' });
  await app.register(propertyDefinitionRoutes(deps), { prefix: '/api/projects/:project_id/property_definitions' });
  await app.register(schemaRoutes(deps), { prefix: '/api/projects/:project_id' });
  await app.register(consoleRoutes({ root: options.consoleDir }));
  return app;
}
