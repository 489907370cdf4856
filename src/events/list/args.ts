/** The events list's arguments, checked: bad input is a 400 naming it. */
import { canonicalUuid } from '../ingestion/uuid.ts';
import { validationError } from '../../kernel/errors.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../kernel/http/pagination.ts';
import { parseAbsoluteDate, parseRelativeDate } from '../../targeting/dates.ts';
import { parsePropertyFilter, type FilterDialect, type PropertyGroup } from '../persons/property-filter.ts';
import type { EventListQuery } from './schemas.ts';

export const EVENT_FILTERS: FilterDialect = {
  owners: ['event', 'person'],
  defaultOwner: 'event',
  unsupportedType: (type) => `Property filters of type "${type}" are not supported here; use "event" or "person".`,
};

/** A bound for SQL: text PostgreSQL reads as timestamptz (microseconds kept), and the uuid breaking ties at it. */
export interface Bound {
  at: string;
  uuid: string | null;
}

export interface EventListArgs {
  event: string | null;
  distinctId: string | null;
  /** A person uuid or integer id (as text). */
  personId: string | null;
  properties: PropertyGroup | null;
  before: Bound | null;
  after: Bound | null;
  ascending: boolean;
  limit: number;
}

const HAS_OFFSET = /([Zz]|[+-]\d{2}(:?\d{2})?)$/;

function dateArg(value: string | undefined, attr: string, now: Date): string | null {
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  const relative = parseRelativeDate(text, now);
  if (relative) return relative.toISOString();
  if (parseAbsoluteDate(text) === null) throw validationError(`Invalid date "${text.slice(0, 64)}": use ISO 8601 (e.g. 2024-01-01T00:00:00Z) or a relative date (e.g. -7d).`, attr, 'invalid');
  // Sent on to PostgreSQL as written (microseconds kept); a date alone is its midnight, a time without an offset is UTC.
  const time = /[Tt ](.*)$/.exec(text)?.[1];
  if (time === undefined) return `${text}T00:00:00Z`;
  return HAS_OFFSET.test(time) ? text : `${text}Z`;
}

function uuidArg(value: string | undefined, attr: string): string | null {
  if (value === undefined || value === '') return null;
  const uuid = canonicalUuid(value);
  if (uuid === null) throw validationError('Must be a valid UUID.', attr, 'invalid');
  return uuid;
}

function orderArg(value: string | undefined): boolean {
  if (value === undefined || value.trim() === '') return false;
  let parsed: unknown = value.trim();
  if (value.trim().startsWith('[')) {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw validationError('orderBy must be a JSON list such as ["-timestamp"].', 'orderBy', 'invalid');
    }
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (first === '-timestamp') return false;
  if (first === 'timestamp') return true;
  throw validationError('Events can be ordered by "-timestamp" (newest first) or "timestamp" only.', 'orderBy', 'invalid');
}

function personArg(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  const uuid = canonicalUuid(text);
  if (uuid !== null) return uuid;
  if (/^\d{1,15}$/.test(text)) return text;
  throw validationError("person_id must be a person's uuid or integer id.", 'person_id', 'invalid');
}

export function parseEventListArgs(query: EventListQuery, now: Date): EventListArgs {
  const before = dateArg(query.before, 'before', now);
  const after = dateArg(query.after, 'after', now);
  return {
    event: query.event === undefined || query.event === '' ? null : query.event,
    distinctId: query.distinct_id === undefined || query.distinct_id === '' ? null : query.distinct_id,
    personId: personArg(query.person_id),
    properties: query.properties === undefined || query.properties.trim() === '' ? null : parsePropertyFilter(query.properties, EVENT_FILTERS),
    before: before === null ? null : { at: before, uuid: uuidArg(query.before_uuid, 'before_uuid') },
    after: after === null ? null : { at: after, uuid: uuidArg(query.after_uuid, 'after_uuid') },
    ascending: orderArg(query.orderBy),
    limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
  };
}
