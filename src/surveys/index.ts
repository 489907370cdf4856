/**
 * The surveys area (DESIGN "surveys/"): the management API under /api/projects/{id}/surveys, the
 * response statistics, local summaries, the periodic lifecycle work and the public posthog-js feed.
 * See docs/surveys.md.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { SurveyDeps } from './deps.ts';
import type { EventProcessor } from '../events/pipeline.ts';
import { surveyFeedRoutes } from './feed/routes.ts';
import { SurveyJobs } from './lifecycle/jobs.ts';
import { surveyResponsesProcessor } from './responses/processor.ts';
import { surveyResponseRoutes } from './responses/routes.ts';
import { surveyRoutes } from './routes.ts';
import { surveySummaryRoutes } from './summaries/routes.ts';

export interface Surveys {
  processors: EventProcessor[];
  jobs: SurveyJobs;
  routes: (app: FastifyInstance) => Promise<void>;
}

const PREFIX = '/api/projects/:project_id/surveys';

export interface SurveysOptions {
  /** Where the periodic jobs log their changes and errors. */
  log?: FastifyBaseLogger;
  /** Milliseconds between rounds of the periodic jobs (default 60 s; 0 = off). */
  jobsIntervalMs?: number;
}

export function createSurveys(deps: SurveyDeps, options: SurveysOptions = {}): Surveys {
  return {
    processors: [surveyResponsesProcessor()],
    jobs: new SurveyJobs(deps, { log: options.log, intervalMs: options.jobsIntervalMs }),
    async routes(root: FastifyInstance) {
      await root.register(surveyRoutes(deps), { prefix: PREFIX });
      await root.register(surveyResponseRoutes(deps), { prefix: PREFIX });
      await root.register(surveySummaryRoutes(deps), { prefix: PREFIX });
      await root.register(surveyFeedRoutes(deps));
    },
  };
}
