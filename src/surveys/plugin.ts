/**
 * The surveys area: the management API under /api/projects/{id}/surveys, the response statistics,
 * local summaries, the periodic lifecycle work, the survey_events ingestion processor and the
 * public posthog-js feed. See docs/surveys.md.
 */
import { EVENT_PROCESSORS } from '../events/pipeline.ts';
import { defineArea } from '../kernel/area.ts';
import { pluginJobs } from '../kernel/jobs.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import type { SurveyDeps } from './deps.ts';
import { surveyFeedRoutes } from './feed/routes.ts';
import { SurveyJobs } from './lifecycle/jobs.ts';
import { surveyResponsesProcessor } from './responses/processor.ts';
import { surveyResponseRoutes } from './responses/routes.ts';
import { surveyRoutes } from './routes.ts';
import { surveySummaryRoutes } from './summaries/routes.ts';

export interface SurveysOptions {
  /**
   * Milliseconds between rounds of the periodic survey work; 0 or absent = no timer (tests run
   * rounds themselves with `app.surveyJobs.runOnce`). main.ts passes SURVEY_JOBS_INTERVAL_MS.
   */
  surveyJobsIntervalMs?: number;
}

export const surveys = defineArea<SurveysOptions>('surveys', ['kernel', 'public', 'accounts', 'flags', 'ingestion'], async (app, options) => {
  const deps: SurveyDeps = { ...app.kernel, flagCache: app.flagCache, projectTokens: app.projectTokens, authenticator: app.authenticator };
  const jobs = new SurveyJobs(deps, { log: app.log, intervalMs: options.surveyJobsIntervalMs ?? 0 });
  app.decorate('surveyJobs', jobs);
  pluginJobs(app).periodic(jobs);
  app.extensions.contribute(EVENT_PROCESSORS, surveyResponsesProcessor());

  await registerInProject(app, '/surveys', surveyRoutes(deps), surveyResponseRoutes(deps), surveySummaryRoutes(deps));
  await app.register(surveyFeedRoutes(deps));
});
