import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kernel } from '../../kernel/deps.ts';
import { withBoundedRead } from '../../db/bounded-read.ts';
import { refuseOtherMethods } from '../../kernel/http/method-not-allowed.ts';
import { requestUrlWith } from '../../kernel/http/pagination.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { sendJson } from '../../kernel/http/send-json.ts';
import { parseEventListArgs } from './args.ts';
import { listEvents, type EventRow } from './read-model.ts';
import { EventListQuery, EventListResponse, ProjectParams } from './schemas.ts';

/** A page waits at most this long for the database (a rare property filter reads many events). */
const LIST_TIMEOUT_MS = 10_000;
const route = routeOptions(['events']);

function presentEvent(row: EventRow) {
  const chain = row.properties.$elements_chain;
  return {
    id: row.id,
    distinct_id: row.distinct_id,
    properties: row.properties,
    event: row.event,
    timestamp: row.timestamp,
    person:
      row.person_uuid === null
        ? null
        : {
            id: row.person_uuid,
            uuid: row.person_uuid,
            is_identified: row.person_identified ?? false,
            distinct_ids: row.person_first_distinct_id === null ? [] : [row.person_first_distinct_id],
            properties: row.person_properties ?? {},
          },
    elements: [],
    elements_chain: typeof chain === 'string' ? chain : '',
  };
}

/** GET /api/projects/:project_id/events/: PostHog's events list (read-only; events are written by ingestion). */
export function eventListRoutes(deps: Kernel) {
  return async function register(root: FastifyInstance): Promise<void> {
    const app = root.withTypeProvider<TypeBoxTypeProvider>();
    refuseOtherMethods(root, '/', ['GET']);

    app.get(
      '/',
      route.scoped('query:read', "List the project's events, newest first (PostHog's events list)", {
        description:
          '`next` is this URL with `before` (or `after` in ascending order) set to the last event of the page, plus `before_uuid`/`after_uuid` ' +
          'so that events sharing that timestamp are neither repeated nor skipped. Events more than 5 seconds in the future are left out.',
        params: ProjectParams, querystring: EventListQuery, response: { 200: EventListResponse },
      }),
      async (request, reply) => {
        const args = parseEventListArgs(request.query, new Date());
        const rows = await withBoundedRead(deps.pool, LIST_TIMEOUT_MS, (client) => listEvents(client, request.project.id, args, args.limit + 1), {
          walkIndexOrder: true,
        });
        const page = rows.slice(0, args.limit);
        const last = page.at(-1);
        const next =
          rows.length > args.limit && last
            ? requestUrlWith(request, args.ascending ? { after: last.timestamp, after_uuid: last.id } : { before: last.timestamp, before_uuid: last.id })
            : null;
        return sendJson(reply, JSON.stringify({ next, results: page.map(presentEvent) }));
      },
    );
  };
}
