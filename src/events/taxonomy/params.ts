import { notFound, validationError } from '../../kernel/errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (raw: string): boolean => UUID.test(raw);

/** A path id that is not a UUID names nothing: 404, never a database error. */
export function uuidOrNotFound(raw: string): string {
  if (!isUuid(raw)) throw notFound();
  return raw.toLowerCase();
}

/** PostgreSQL text cannot hold NUL; names arriving from query strings lose them. */
export const stripNul = (value: string): string => value.replace(/\u0000/g, '');

/** A body string with a NUL is refused, as DRF's ProhibitNullCharactersValidator does. */
export function refuseNul(value: string | null | undefined, attr: string): void {
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw validationError('Null characters are not allowed.', attr, 'null_characters_not_allowed');
  }
}

/** Search terms: split on spaces, empty terms dropped, NULs removed. Every term must match. */
export function searchTerms(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return stripNul(raw).split(' ').map((term) => term.trim()).filter(Boolean);
}

/** A LIKE pattern matching `term` anywhere, with `%`, `_` and `\` taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A JSON list of names (`excluded_properties`, `event_names`). Absent or blank → []; anything
 * that is not a JSON list of strings → 400 naming the parameter (PostHog answers 500 here).
 */
export function jsonNameList(raw: string | undefined, attr: string): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationError('Must be a JSON-encoded list of strings.', attr, 'invalid_input');
  }
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw validationError('Must be a JSON-encoded list of strings.', attr, 'invalid_input');
  }
  return [...new Set(parsed.map(stripNul))];
}

/** `tags`: a JSON list or a comma list; compared lower-cased, as tags are stored. Bad JSON is ignored (PostHog). */
export function tagFilter(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  let list: unknown[] = [];
  if (raw.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed)) list = parsed;
    } catch {
      list = [];
    }
  } else {
    list = raw.split(',');
  }
  const tags = list.filter((t): t is string => typeof t === 'string').map((t) => stripNul(t).trim().toLowerCase());
  return [...new Set(tags.filter(Boolean))];
}

/** Names given as repeated parameters and/or comma-joined; blanks dropped. */
export function nameList(raw: string[] | undefined): string[] {
  if (!raw) return [];
  const names = raw.flatMap((value) => stripNul(value).split(',')).map((name) => name.trim()).filter(Boolean);
  return [...new Set(names)];
}
