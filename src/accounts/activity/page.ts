import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { ReadHandle } from '../../db/pool.ts';
import { MAX_LIMIT } from '../../kernel/http/pagination.ts';
import { documentedAs } from '../../kernel/http/shapes.ts';
import { ActivityEntry } from './schemas.ts';
import { listActivity } from './store.ts';

/** Activity pages by page number, not offset (PostHog's activity endpoints). */
export const ActivityPageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
});
export type ActivityPageQuery = Static<typeof ActivityPageQuery>;

export const ActivityPageResponse = Type.Object({
  // Sent as stored: the serializer passes every key through.
  results: Type.Array(documentedAs(ActivityEntry, Type.Object({}, { additionalProperties: true }))),
  next: Type.Union([Type.String(), Type.Null()]),
  previous: Type.Union([Type.String(), Type.Null()]),
  total_count: Type.Integer(),
});

export interface ActivityPage {
  results: ActivityEntry[];
  next: string | null;
  previous: string | null;
  total_count: number;
}

function pageUrl(request: FastifyRequest, page: number, limit: number): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('page', String(page));
  url.searchParams.set('limit', String(limit));
  return url.toString();
}

export async function activityPage(
  db: ReadHandle,
  request: FastifyRequest,
  query: ActivityPageQuery,
  target: { projectId: number; scope: string; itemId?: string },
): Promise<ActivityPage> {
  const page = query.page ?? 1;
  const limit = Math.min(query.limit ?? 10, MAX_LIMIT);
  const { total, entries } = await listActivity(db, { ...target, limit, offset: (page - 1) * limit });
  return {
    results: entries,
    next: page * limit < total ? pageUrl(request, page + 1, limit) : null,
    previous: page > 1 ? pageUrl(request, page - 1, limit) : null,
    total_count: total,
  };
}
