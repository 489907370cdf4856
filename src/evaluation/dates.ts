/**
 * Dates for `is_date_before` / `is_date_after` / `is_date_exact`.
 *
 * Condition values: a relative date (`-30d`, `6h`, `2w`, `3m`, `1y`; number below 10000) counted back
 * from `now` in UTC, else an absolute date. Months and years step back the way current posthog-node
 * does: a month at a time, the day clamped to each month's length (31 March − 1m = 28/29 February,
 * − 2m = 28 January; 29 February − 1y = 28 February); the rule lives in src/targeting/dates.ts,
 * shared with validation.
 *
 * Property values (and absolute condition values):
 * - ISO 8601 dates and date-times (`parseAbsoluteDate`, shared with validation); no offset means UTC;
 * - otherwise what JavaScript's `Date` parses (`Mon, 01 Jan 2024 …`, `January 1, 2024`), as
 *   posthog-node does, so the two agree on every value the SDK can read;
 * - a numeric string JavaScript cannot read (`"1700000000"`) is unix seconds, as PostHog's flags
 *   service reads it (posthog-node leaves those to the server);
 * - a JSON number is epoch milliseconds, as posthog-node reads it (PostHog's server reads seconds;
 *   the SDK decides those locally, so the server follows it);
 * - anything else (booleans, objects, unparseable text) is not a date, and the condition fails.
 */
import { parseAbsoluteDate, parseRelativeDate } from '../targeting/dates.ts';

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const valid = (date: Date): Date | null => (Number.isNaN(date.getTime()) ? null : date);

/** A property value as a date (see the module comment), or null. */
export function dateOf(value: unknown): Date | null {
  if (value instanceof Date) return valid(new Date(value.getTime()));
  if (typeof value === 'number') return Number.isFinite(value) ? valid(new Date(value)) : null;
  if (typeof value !== 'string') return null;
  const absolute = parseAbsoluteDate(value);
  if (absolute) return absolute;
  const parsed = valid(new Date(value));
  if (parsed) return parsed;
  const text = value.trim();
  return NUMERIC.test(text) ? valid(new Date(Number(text) * 1000)) : null;
}

/** A condition value as a date: relative to `now`, else absolute. Booleans are never dates. */
export function conditionDate(value: unknown, now: Date): Date | null {
  if (typeof value === 'string') return parseRelativeDate(value, now) ?? dateOf(value);
  if (typeof value === 'number') return dateOf(value);
  return null;
}
