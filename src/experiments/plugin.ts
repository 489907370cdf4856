/**
 * The experiments area: PostHog's experiments API under /api/projects/{id}/experiments, the
 * ingestion processor keeping each launched experiment's exposures and per-person metric
 * aggregates, and the experiment query kinds of `/query/`. See docs/experiments.md.
 */
import { EVENT_PROCESSORS } from '../events/pipeline.ts';
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import type { ExperimentDeps } from './deps.ts';
import { LiveExperimentsCache } from './exposure/live-cache.ts';
import { experimentsProcessor } from './exposure/processor.ts';
import { ResultsCache } from './results/cache.ts';
import { queryRoutes } from './results/routes.ts';
import { experimentRoutes } from './routes.ts';

export const experiments = defineArea('experiments', ['kernel', 'accounts', 'flags', 'ingestion'], async (app) => {
  const deps: ExperimentDeps = { ...app.kernel, flagCache: app.flagCache, results: new ResultsCache() };
  app.extensions.contribute(EVENT_PROCESSORS, experimentsProcessor(new LiveExperimentsCache(app.kernel.pool, app.kernel.bus)));
  await registerInProject(app, '/experiments', experimentRoutes(deps));
  await registerInProject(app, '/query', queryRoutes(deps));
});
