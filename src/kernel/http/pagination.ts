import type { FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** limit/offset as every paginated list accepts them; larger limits are clamped, not refused. */
export const PaginationQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
});
export type PaginationQuery = Static<typeof PaginationQuery>;

export interface Page {
  limit: number;
  offset: number;
}

export function pageOf(query: PaginationQuery): Page {
  return { limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT), offset: query.offset ?? 0 };
}

export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** The request's own absolute URL with `limit`/`offset` replaced; every other parameter kept. */
function pageUrl(request: FastifyRequest, limit: number, offset: number): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('limit', String(limit));
  if (offset > 0) url.searchParams.set('offset', String(offset));
  else url.searchParams.delete('offset');
  return url.toString();
}

/** The request's own absolute URL with these query parameters set (a string) or removed (null); the others kept. */
export function requestUrlWith(request: FastifyRequest, changes: Record<string, string | null>): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) url.searchParams.delete(name);
    else url.searchParams.set(name, value);
  }
  return url.toString();
}

/** The absolute URLs of the pages before and after `page`, or null at either end. */
export function pageLinks(request: FastifyRequest, page: Page, count: number): { next: string | null; previous: string | null } {
  return {
    next: page.offset + page.limit < count ? pageUrl(request, page.limit, page.offset + page.limit) : null,
    previous: page.offset > 0 ? pageUrl(request, page.limit, Math.max(0, page.offset - page.limit)) : null,
  };
}

export function paginated<T>(request: FastifyRequest, page: Page, count: number, results: T[]): Paginated<T> {
  return { count, ...pageLinks(request, page, count), results };
}

/** The schema of a paginated list of `item`. */
export function paginatedOf<T extends TSchema>(item: T) {
  return Type.Object({
    count: Type.Integer(),
    next: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
    previous: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
    results: Type.Array(item),
  });
}

/**
 * A list route's answer: `load` reads the request's page with the total, either as stored `rows` that
 * `present` shapes or as `results` already presented.
 */
export async function listPage<T>(request: FastifyRequest, query: PaginationQuery, load: (page: Page) => Promise<{ count: number; results: T[] }>): Promise<Paginated<T>>;
export async function listPage<R, T>(
  request: FastifyRequest,
  query: PaginationQuery,
  load: (page: Page) => Promise<{ count: number; rows: R[] }>,
  present: (row: R) => T,
): Promise<Paginated<T>>;
export async function listPage<R, T>(
  request: FastifyRequest,
  query: PaginationQuery,
  load: (page: Page) => Promise<{ count: number; rows: R[] } | { count: number; results: T[] }>,
  present?: (row: R) => T,
): Promise<Paginated<T>> {
  const page = pageOf(query);
  const listed = await load(page);
  const results = 'rows' in listed ? listed.rows.map(present as (row: R) => T) : listed.results;
  return paginated(request, page, listed.count, results);
}
