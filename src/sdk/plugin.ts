/**
 * The public SDK area: flag evaluation (`/flags`, `/decide`), flag definitions for local
 * evaluation, the evaluation_reasons / my_flags / test_evaluation flag actions, OFREP, and the
 * ingestion processors that keep flags' `last_called_at` and the SDK caches current. See docs/sdk.md.
 */
import { EVENT_PROCESSORS } from '../events/pipeline.ts';
import { defineArea } from '../kernel/area.ts';
import { pluginJobs } from '../kernel/jobs.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import { SdkAuth } from './auth.ts';
import { PersonCache } from './person-cache.ts';
import { SdkCache } from './cache.ts';
import type { SdkDeps } from './deps.ts';
import { LastCalledWriter } from './last-called.ts';
import { groupTypesProcessor, lastCalledProcessor } from './processors.ts';
import { definitionsRoutes, projectDefinitionsRoutes } from './routes/definitions.ts';
import { evaluationRoutes } from './routes/evaluation.ts';
import { ofrepRoutes } from './routes/ofrep.ts';
import { playgroundRoutes } from './routes/playground.ts';
import { projectFlagRoutes } from './routes/project-flags.ts';

export interface SdkOptions {
  /** Milliseconds between writes of buffered `last_called_at` times; default 2 000 (tests call `app.lastCalled.flush()`). */
  lastCalledIntervalMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Buffered `last_called_at` times (tests write them at once with `flush`). */
    lastCalled: LastCalledWriter;
  }
}

export const sdk = defineArea<SdkOptions>('sdk', ['kernel', 'public', 'accounts', 'flags', 'ingestion'], async (app, options) => {
  const { pool, bus } = app.kernel;
  const deps: SdkDeps = {
    pool,
    cache: new SdkCache(pool, bus, app.flagCache),
    persons: new PersonCache(bus),
    auth: new SdkAuth(pool, app.authenticator, app.projectTokens, bus),
  };
  const lastCalled = new LastCalledWriter(pool, app.flagCache, app.log, options.lastCalledIntervalMs);
  app.decorate('lastCalled', lastCalled);
  pluginJobs(app).periodic(lastCalled);
  app.extensions.contribute(EVENT_PROCESSORS, lastCalledProcessor(lastCalled), groupTypesProcessor(bus));

  await app.register(evaluationRoutes(deps));
  await app.register(definitionsRoutes(deps));
  await registerInProject(app, '/feature_flags', projectDefinitionsRoutes(deps), projectFlagRoutes(deps), playgroundRoutes(deps));
  await app.register(ofrepRoutes(deps));
});
