/** The responses list's query arguments, checked (every one bounded; bad input is a 400 naming it). */
import { validationError } from '../../kernel/errors.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../kernel/http/pagination.ts';
import { decodeCursor, type Cursor } from './cursor.ts';
import { excludeArchivedArg } from './args.ts';
import { parseDateRangeOrRelative, type DateRange } from './dates.ts';

export const MAX_SEARCH_LENGTH = 200;

export interface ResponseListQueryArgs {
  date_from?: string;
  date_to?: string;
  exclude_archived?: string;
  search?: string;
  cursor?: string;
  limit?: number;
  format?: string;
}

export interface ResponseListArgs {
  range: DateRange;
  excludeArchived: boolean;
  /** Trimmed, at most MAX_SEARCH_LENGTH characters; null = no search. */
  search: string | null;
  cursor: Cursor | null;
  limit: number;
}

export function searchArg(value: string | undefined): string | null {
  const search = value?.trim() ?? '';
  if (search === '') return null;
  if (search.length > MAX_SEARCH_LENGTH) {
    throw validationError(`Ensure this value has at most ${MAX_SEARCH_LENGTH} characters (it has ${search.length}).`, 'search', 'max_length');
  }
  return search;
}

/** `%term%` for ILIKE, with the pattern characters of the term escaped (backslash, the default escape). */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function parseResponseListArgs(query: ResponseListQueryArgs, now: Date): ResponseListArgs {
  return {
    range: parseDateRangeOrRelative(query.date_from, query.date_to, now),
    excludeArchived: excludeArchivedArg(query.exclude_archived),
    search: searchArg(query.search),
    cursor: query.cursor === undefined || query.cursor === '' ? null : decodeCursor(query.cursor),
    limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
  };
}
