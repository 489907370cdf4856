import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { poolWrite } from '../../db/unit-of-work.ts';
import type { Kernel } from '../../kernel/deps.ts';
import { refuseOtherMethodsOn } from '../../kernel/http/method-not-allowed.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { HeadlineResponse, SummarizeQuery, SummarizeResponse, SummaryBody, SurveyParams } from './schemas.ts';
import { summarizeResponses, summaryHeadline } from './service.ts';

const route = routeOptions(['surveys']);

/** `question_index` that is not an integer counts as not given (PostHog). */
function parseQuestionIndex(raw: string | undefined): number | null {
  if (raw === undefined || !/^\s*[+-]?\d+\s*$/.test(raw)) return null;
  const index = Number(raw);
  return Number.isSafeInteger(index) ? index : null;
}

/** summarize_responses and summary_headline, computed locally. */
export function surveySummaryRoutes(deps: Kernel) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, { '/:id/summarize_responses': ['POST'], '/:id/summary_headline': ['POST'] });

    app.post(
      '/:id/summarize_responses',
      route.scoped('survey:read', "A local summary of one question's answers: themes of open answers, rating average and NPS", {
        description:
          'Computed without network or language model; the same answers always give the same text. Stored per question when ' +
          'asked by question_id and answered with cached: true until force_refresh. 400 without question_id/question_index, ' +
          'or when the question does not exist.',
        params: SurveyParams, querystring: SummarizeQuery, body: SummaryBody, response: { 200: SummarizeResponse },
      }),
      async (request, reply) => {
        const questionId = request.query.question_id ? request.query.question_id : null;
        const result = await summarizeResponses(poolWrite(deps.pool), {
          projectId: request.project.id,
          surveyId: request.params.id,
          questionId,
          questionIndex: parseQuestionIndex(request.query.question_index),
          forceRefresh: request.body?.force_refresh === true,
        });
        reply.header('cache-control', 'private, max-age=15');
        return result;
      },
    );

    app.post(
      '/:id/summary_headline',
      route.scoped('survey:read', 'One sentence (at most 20 words) over the newest 100 responses, computed locally', {
        description: 'Stored on the survey and answered from there until force_refresh.',
        params: SurveyParams,
        body: SummaryBody,
        response: { 200: HeadlineResponse },
      }),
      async (request) =>
        summaryHeadline(poolWrite(deps.pool), { projectId: request.project.id, surveyId: request.params.id, forceRefresh: request.body?.force_refresh === true }),
    );
  };
}
