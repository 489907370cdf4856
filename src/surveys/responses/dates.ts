import { validationError } from '../../kernel/errors.ts';
import { parseRelativeDate } from '../../targeting/dates.ts';

/** An instant to the microsecond (PostgreSQL's precision), and its ISO text in UTC for queries. */
export interface Instant {
  micros: bigint;
  iso: string;
}

export const INVALID_DATE_FORMAT =
  'Invalid date format. Please use ISO 8601 format with timezone info (e.g. 2024-01-01T00:00:00Z or 2024-01-01T00:00:00+00:00)';
export const DATE_ORDER = 'date_from must be before date_to';

// What Python's datetime.fromisoformat reads (PostHog parses these arguments with it): a date
// (extended or basic), optionally a time after `T`, `t` or a space (hours, minutes, seconds and a
// fraction, extended or basic), optionally `Z` or an offset. A value without an offset is UTC.
const ISO = new RegExp(
  '^(\\d{4})-?(\\d{2})-?(\\d{2})' +
    '(?:[Tt ](\\d{2})(?::?(\\d{2})(?::?(\\d{2})(?:[.,](\\d{1,9}))?)?)?' +
    '(?:([Zz])|([+-])(\\d{2})(?::?(\\d{2})(?::?(\\d{2})(?:[.,]\\d{1,6})?)?)?)?)?$',
);

const pad = (value: number | bigint, width: number) => String(value).padStart(width, '0');

/** Milliseconds since the epoch of a UTC date and time (years below 100 included, unlike Date.UTC). */
function utcMillis(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(utcMillis(year, month, 1));
  date.setUTCMonth(month, 0);
  return date.getUTCDate();
}

/** Reads one ISO 8601 value, or null when it is not one. */
export function parseInstant(text: string): Instant | null {
  const match = ISO.exec(text);
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', , sign, oh = '0', om = '0', os = '0'] = match;
  // Basic and extended forms may not be mixed within the date ("2024-0101").
  if (/^\d{4}-\d{4}/.test(text) || /^\d{6}-/.test(text)) return null;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  if (Number(oh) > 23 || Number(om) > 59 || Number(os) > 59) return null;
  const offsetSeconds = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60 + Number(os));
  const micros = BigInt(fraction.padEnd(6, '0').slice(0, 6) || '0');
  const utcMs = utcMillis(year, month, day, hour, minute, second) - offsetSeconds * 1000;
  const total = BigInt(utcMs) * 1000n + micros;
  return { micros: total, iso: isoFromMicros(total) };
}

/** `2024-05-01T12:00:00Z`, or with six fraction digits when there are microseconds (Python's isoformat + `Z`). */
export function isoFromMicros(micros: bigint | number): string {
  const value = BigInt(micros);
  let seconds = value / 1_000_000n;
  let fraction = value % 1_000_000n;
  if (fraction < 0n) {
    fraction += 1_000_000n;
    seconds -= 1n;
  }
  const date = new Date(Number(seconds) * 1000);
  const base = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${date.toISOString().slice(11, 19)}`;
  return fraction === 0n ? `${base}Z` : `${base}.${pad(fraction, 6)}Z`;
}

export interface DateRange {
  from: Instant | null;
  to: Instant | null;
}

function instantArg(value: unknown, attr: string): Instant | null {
  if (value === undefined || value === null || value === '') return null;
  const instant = typeof value === 'string' ? parseInstant(value) : null;
  if (!instant) throw validationError(INVALID_DATE_FORMAT, attr);
  return instant;
}

/** `date_from` / `date_to` → instants; a bad value or an inverted range is a 400. */
export function parseDateRange(dateFrom: unknown, dateTo: unknown): DateRange {
  const from = instantArg(dateFrom, 'date_from');
  const to = instantArg(dateTo, 'date_to');
  if (from && to && from.micros > to.micros) throw validationError(DATE_ORDER, 'date_from');
  return { from, to };
}

/** An instant from a JS date (millisecond precision). */
export function instantOfDate(date: Date): Instant {
  const micros = BigInt(date.getTime()) * 1000n;
  return { micros, iso: isoFromMicros(micros) };
}

function instantOrRelative(value: unknown, attr: string, now: Date): Instant | null {
  if (typeof value === 'string') {
    const relative = parseRelativeDate(value.trim(), now);
    if (relative) return instantOfDate(relative);
  }
  return instantArg(value, attr);
}

/**
 * As parseDateRange, and also PostHog's relative forms (`-7d`, `-24h`, `-2w`, `-3m`, `-1y`,
 * counted back from `now`): the responses list's filters.
 */
export function parseDateRangeOrRelative(dateFrom: unknown, dateTo: unknown, now: Date): DateRange {
  const from = instantOrRelative(dateFrom, 'date_from', now);
  const to = instantOrRelative(dateTo, 'date_to', now);
  if (from && to && from.micros > to.micros) throw validationError(DATE_ORDER, 'date_from');
  return { from, to };
}
