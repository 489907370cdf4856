import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { validationError } from '../../kernel/errors.ts';
import { refuseOtherMethods } from '../../kernel/http/method-not-allowed.ts';
import { sendJson } from '../../kernel/http/send-json.ts';
import type { ExperimentDeps } from '../deps.ts';
import { experimentQuery, exposureQuery, SERVED_KINDS } from './query.ts';

const QueryBody = Type.Object(
  {
    query: Type.Object({ kind: Type.String({ maxLength: 200 }) }, { additionalProperties: true }),
    refresh: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Boolean()], { description: 'force_blocking (or true): recompute now; anything else: results at most 60 s old' })),
    client_query_id: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
);

const QueryParams = Type.Object({ project_id: Type.String() });

/** `POST /query/`: the experiment query kinds; any other kind is refused naming the ones served. */
export function queryRoutes(deps: ExperimentDeps) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethods(root, '/', ['POST']);
    app.post(
      '/',
      {
        config: { scope: 'query:read' },
        schema: {
          tags: ['query'],
          summary: `Run a query: the kinds served are ${SERVED_KINDS.join(' and ')}`,
          description:
            'ExperimentQuery `{experiment_id, metric}` answers the metric’s per-variant statistics (baseline, variant_results); ExperimentExposureQuery `{experiment_id}` answers exposures per variant per day, totals and the sample ratio mismatch. Results of a running experiment are at most 60 s old.',
          params: QueryParams,
          body: QueryBody,
          response: { 200: Type.Object({ kind: Type.String() }, { additionalProperties: true }) },
        },
      },
      async (request, reply) => {
        const { query, refresh } = request.body;
        const force = refresh === true || refresh === 'force_blocking';
        let result;
        if (query.kind === 'ExperimentQuery') result = await experimentQuery(deps, request.project.id, query, force);
        else if (query.kind === 'ExperimentExposureQuery') result = await exposureQuery(deps, request.project.id, query, force);
        else throw validationError(`Query kind "${query.kind}" is not served here; the kinds served are ${SERVED_KINDS.join(' and ')}.`, 'query__kind');
        return sendJson(reply, JSON.stringify(result));
      },
    );
  };
}
