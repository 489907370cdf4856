import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../../kernel/deps.ts';
import { wantsCsv } from '../../kernel/http/csv-format.ts';
import { refuseOtherMethodsOn } from '../../kernel/http/method-not-allowed.ts';
import { requestUrlWith } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { sendJson } from '../../kernel/http/send-json.ts';
import { ProjectParams } from '../schemas.ts';
import { archivedResponseUuids, setResponseArchived } from './archive.ts';
import { excludeArchivedArg, requestArgs, surveyIdsArg, type RawArgs } from './args.ts';
import { surveyResponseCounts } from './counts.ts';
import { exportSurveyResponses } from './export.ts';
import { listSurveyResponses } from './list.ts';
import { parseDateRange } from './dates.ts';
import { withReadSnapshot } from '../../db/read-snapshot.ts';
import {
  ArchiveResponse,
  ArchivedUuidsResponse,
  GlobalStatsResponse,
  ResponseListQuery,
  ResponseListResponse,
  ResponseParams,
  ResponsesCountQuery,
  ResponsesCountResponse,
  StatsQuery,
  SurveyIdParams,
  SurveyStatsResponse,
} from './schemas.ts';
import type { StatsBody } from './present.ts';
import { StatsCache } from './stats-cache.ts';
import { globalStats, RESPONSE_READS, surveyStats, type StatsArgs } from './stats.ts';

const route = routeOptions(['surveys']);

const ARGS_NOTE =
  'Arguments are read from the query string, and from a JSON body when one is sent (a key in the body wins).';

const statsArgs = (args: RawArgs): StatsArgs => ({
  range: parseDateRange(args.date_from, args.date_to),
  excludeArchived: excludeArchivedArg(args.exclude_archived),
});

/** archived-response-uuids, archive/unarchive, stats, global stats, responses_count. */
export function surveyResponseRoutes(deps: Kernel) {
  const { pool, units } = deps;
  const globalCache = new StatsCache<StatsBody>();
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethodsOn(root, {
      '/stats': ['GET'], '/responses_count': ['GET'], '/:id/stats': ['GET'], '/:id/archived-response-uuids': ['GET'], '/:id/responses': ['GET'],
      '/:id/responses/:response_uuid/archive': ['POST'], '/:id/responses/:response_uuid/unarchive': ['POST'],
    });

    app.get(
      '/:id/archived-response-uuids',
      route.scoped('survey:read', "The uuids of the survey's archived responses (a bare list, unordered)", {
        params: SurveyIdParams, response: { 200: ArchivedUuidsResponse },
      }),
      async (request) => archivedResponseUuids(pool, request.project.id, request.params.id),
    );

    app.get(
      '/:id/responses',
      route.scoped('survey:read', "The survey's responses, newest first, by cursor; `?format=csv` streams them all as CSV", {
        description:
          'A response is the latest `survey sent` event of its submission inside the window (the dates given, clamped to the survey start, or creation, and end). ' +
          'Pages follow `next`/`previous` (a cursor on timestamp and uuid: stable while responses arrive). ' +
          'CSV (`format=csv` or `Accept: text/csv`): one row per response of the whole window, one column per question (its text as the header; multiple choice joined with ", "), ' +
          "cells starting with =, +, -, @, a tab or CR prefixed with ' (formula guard); `limit` and `cursor` do not apply.",
        params: SurveyIdParams, querystring: ResponseListQuery,
        response: {
          200: {
            description: 'A page of responses (JSON) or the CSV file',
            content: {
              'application/json': { schema: ResponseListResponse },
              'text/csv': { schema: { type: 'string' } },
            },
          },
        },
      }),
      async (request, reply) => {
        const target = { projectId: request.project.id, rawSurveyId: request.params.id };
        if (wantsCsv(request.query.format, request.headers.accept)) {
          const { fileName, stream } = await exportSurveyResponses(pool, target, request.query);
          // A stream is sent as it is (no serializer); the typed reply only knows the JSON shape.
          return (reply as FastifyReply)
            .header('content-type', 'text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="${fileName}"`)
            .header('cache-control', 'no-store')
            .send(stream);
        }
        const page = await listSurveyResponses(pool, target, request.query, (cursor) => requestUrlWith(request, { cursor }));
        return sendJson(reply, JSON.stringify(page));
      },
    );

    for (const [action, archived] of [
      ['archive', true],
      ['unarchive', false],
    ] as const) {
      app.post(
        `/:id/responses/:response_uuid/${action}`,
        route.scoped('survey:write', archived ? 'Archive one response (idempotent)' : 'Unarchive one response (idempotent)', {
          description: 'A malformed response_uuid is a 400 (attr response_uuid). Any body is ignored.',
          params: ResponseParams,
          response: { 200: ArchiveResponse },
        }),
        async (request) =>
          setResponseArchived(
            units,
            {
              projectId: request.project.id,
              rawSurveyId: request.params.id,
              rawResponseUuid: request.params.response_uuid,
              userId: request.principal.user.id,
            },
            archived,
          ),
      );
    }

    app.get(
      '/:id/stats',
      route.scoped('survey:read', 'Shown, dismissed and sent counts, unique persons and rates of one survey, inside its dates', {
        description: ARGS_NOTE, params: SurveyIdParams, querystring: StatsQuery, response: { 200: SurveyStatsResponse },
      }),
      async (request) => {
        const args = await requestArgs(request);
        return surveyStats(pool, request.project.id, request.params.id, () => statsArgs(args));
      },
    );

    app.get(
      '/stats',
      route.scoped('survey:read', 'The same statistics over every survey of the project that is not archived', {
        description: `${ARGS_NOTE} Answers are kept in memory while nothing they depend on changes; \`Cache-Control: no-cache\` computes afresh.`,
        params: ProjectParams,
        querystring: StatsQuery,
        response: { 200: GlobalStatsResponse },
      }),
      async (request) => {
        const bypass = /\bno-cache\b/i.test(request.headers['cache-control'] ?? '');
        return globalStats(pool, request.project.id, statsArgs(await requestArgs(request)), { cache: globalCache, bypass });
      },
    );

    app.get(
      '/responses_count',
      route.scoped('survey:read', 'Responses per survey, each counted inside its own dates', {
        description: ARGS_NOTE, params: ProjectParams, querystring: ResponsesCountQuery, response: { 200: ResponsesCountResponse },
      }),
      async (request) => {
        const args = await requestArgs(request);
        const options = { surveyIds: surveyIdsArg(args.survey_ids), excludeArchived: excludeArchivedArg(args.exclude_archived) };
        const counts = await withReadSnapshot(pool, (client) => surveyResponseCounts(client, request.project.id, options), RESPONSE_READS);
        return Object.fromEntries(counts);
      },
    );
  };
}
