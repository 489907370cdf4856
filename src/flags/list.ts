import type { Page } from '../kernel/http/pagination.ts';
import type { ProjectFlags } from './cache.ts';
import { decodeListQuery } from './list-filter.ts';
import { compareForOrder, matchesListFilter } from './list-match.ts';
import type { RenderedFlag } from './present.ts';
import type { FlagListQuery } from './schemas.ts';

const DEFAULT_ORDER = { column: 'created_at', descending: true } as const;

/** One page of the flag list, filtered and ordered in memory from the project's cached flags. */
export function listProjectFlags(
  flags: ProjectFlags,
  query: FlagListQuery,
  page: Page,
  now: Date,
): { count: number; flags: RenderedFlag[] } {
  const filter = decodeListQuery(query);
  let matching = flags.all().filter((flag) => matchesListFilter(flag.record, filter, now));
  const { column, descending } = filter.order;
  if (column !== DEFAULT_ORDER.column || descending !== DEFAULT_ORDER.descending) {
    const compare = compareForOrder(filter.order);
    matching = [...matching].sort((a, b) => compare(a.record, b.record));
  }
  return { count: matching.length, flags: matching.slice(page.offset, page.offset + page.limit) };
}
