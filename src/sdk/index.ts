/**
 * The public SDK area (DESIGN "sdk/"): flag evaluation (`/flags`, `/decide`), flag definitions for
 * local evaluation, the evaluation_reasons / my_flags flag actions, OFREP, and the ingestion
 * processors that keep flags' `last_called_at` and the SDK caches current. See docs/sdk.md.
 *
 * app.ts: `const sdk = createSdk(deps)`, then `ingestionRoutes(deps, sdk.processors)` and
 * `app.register(sdk.routes)`.
 */
import type { FastifyInstance } from 'fastify';
import type { EventProcessor } from '../events/pipeline.ts';
import { SdkAuth } from './auth.ts';
import { SdkCache } from './cache.ts';
import type { SdkDeps, SdkSetupDeps } from './deps.ts';
import { LastCalledWriter, type LastCalledLog } from './last-called.ts';
import { groupTypesProcessor, lastCalledProcessor } from './processors.ts';
import { definitionsRoutes } from './routes/definitions.ts';
import { evaluationRoutes } from './routes/evaluation.ts';
import { ofrepRoutes } from './routes/ofrep.ts';
import { projectFlagRoutes } from './routes/project-flags.ts';

export interface Sdk {
  deps: SdkDeps;
  processors: EventProcessor[];
  /** Buffers `last_called_at`; the app starts and stops it. */
  lastCalled: LastCalledWriter;
  routes: (app: FastifyInstance) => Promise<void>;
}

export interface SdkOptions {
  log: LastCalledLog;
  /** Milliseconds between writes of buffered `last_called_at` times (default 2 000; 0: only on `flush`). */
  lastCalledIntervalMs?: number;
}

export function createSdk(app: SdkSetupDeps, options: SdkOptions): Sdk {
  const cache = new SdkCache(app.pool, app.bus, app.flagCache);
  const auth = new SdkAuth(app.pool, app.authenticator, app.projectTokens, app.bus);
  const deps: SdkDeps = { pool: app.pool, cache, auth };
  const lastCalled = new LastCalledWriter(app.pool, app.flagCache, options.log, options.lastCalledIntervalMs);
  return {
    deps,
    lastCalled,
    processors: [lastCalledProcessor(lastCalled), groupTypesProcessor(app.bus)],
    async routes(root: FastifyInstance) {
      await root.register(evaluationRoutes(deps));
      await root.register(definitionsRoutes(deps));
      await root.register(projectFlagRoutes(deps));
      await root.register(ofrepRoutes(deps));
    },
  };
}
