/**
 * The experiments area: PostHog's experiments API under /api/projects/{id}/experiments, the
 * ingestion processor keeping each launched experiment's exposures and per-person metric
 * aggregates, the experiment query kinds of `/query/` and the significance rounds
 * (`experiment.significant`). See docs/experiments.md.
 */
import { ACTIVITY_FOLLOWERS } from '../accounts/activity/store.ts';
import { EVENT_PROCESSORS } from '../events/pipeline.ts';
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import { pluginJobs } from '../kernel/jobs.ts';
import type { ExperimentDeps } from './deps.ts';
import { syncExperimentsToFlag } from './flag-sync.ts';
import { LiveExperimentsCache } from './exposure/live-cache.ts';
import { experimentsProcessor } from './exposure/processor.ts';
import { ResultsCache } from './results/cache.ts';
import { queryRoutes } from './results/routes.ts';
import { experimentRoutes } from './routes.ts';
import { SignificanceJob } from './significance/job.ts';

export interface ExperimentsOptions {
  /**
   * Milliseconds between significance rounds (`experiment.significant`); 0 or absent = no timer
   * (tests run rounds with `app.experimentSignificance.runOnce`). main.ts passes EXPERIMENT_SIGNIFICANCE_INTERVAL_MS.
   */
  experimentSignificanceIntervalMs?: number;
}

export const experiments = defineArea<ExperimentsOptions>('experiments', ['kernel', 'accounts', 'flags', 'ingestion'], async (app, options) => {
  const deps: ExperimentDeps = { ...app.kernel, flagCache: app.flagCache, results: new ResultsCache() };
  const significance = new SignificanceJob(deps, { log: app.log, intervalMs: options.experimentSignificanceIntervalMs ?? 0 });
  app.decorate('experimentSignificance', significance);
  pluginJobs(app).periodic(significance);
  app.extensions.contribute(ACTIVITY_FOLLOWERS, { follow: syncExperimentsToFlag });
  app.extensions.contribute(EVENT_PROCESSORS, experimentsProcessor(new LiveExperimentsCache(app.kernel.pool, app.kernel.bus)));
  await registerInProject(app, '/experiments', experimentRoutes(deps));
  await registerInProject(app, '/query', queryRoutes(deps));
});
