import { withinStorableYears } from '../../kernel/time.ts';

/**
 * Event times as PostHog resolves them. Inputs are ISO 8601 strings (an offset or `Z`; none means
 * UTC) or epoch milliseconds (a number, or a string of digits).
 */

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;


/** Timestamps more than this far in the future are taken as "now" (PostHog's rule). */
const FUTURE_TOLERANCE_MS = 23 * 60 * 60 * 1000;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1];
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function parseIso(text: string): number | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  date.setUTCFullYear(year);
  let ms = date.getTime();
  if (m[9]) {
    const offsetHours = Number(m[10]);
    const offsetMinutes = Number(m[11] ?? 0);
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    const offset = (offsetHours * 60 + offsetMinutes) * 60_000;
    ms += m[9] === '+' ? -offset : offset;
  }
  return ms;
}

/** Epoch milliseconds of an ISO 8601 string or an epoch-milliseconds number; null when unreadable. */
export function parseTimestamp(value: unknown): number | null {
  let ms: number | null;
  if (typeof value === 'number') {
    ms = Number.isFinite(value) ? Math.trunc(value) : null;
  } else if (typeof value === 'string') {
    const text = value.trim();
    ms = /^\d{1,16}$/.test(text) ? Number(text) : parseIso(text);
  } else {
    ms = null;
  }
  return ms !== null && inRange(ms) ? ms : null;
}

/** Within what PostgreSQL and the API's ISO output can hold: years 1 to 9999. */
export const inRange = withinStorableYears;

export interface TimeInputs {
  /** When the request arrived. */
  now: number;
  timestamp: number | null;
  sentAt: number | null;
  /** Milliseconds before `sent_at` (posthog-js's older `offset`). */
  offset: number | null;
  /** `$ignore_sent_at`: the sender's clock is trusted (imports). */
  ignoreSentAt: boolean;
}

/**
 * PostHog's rule: with `sent_at` and `timestamp`, the event happened `sent_at − timestamp` before
 * the request arrived (the sender's clock skew cancels out); else `offset` ms before now; else the
 * timestamp as sent; else now. A time more than 23 hours ahead is taken as now.
 */
export function resolveEventTime({ now, timestamp, sentAt, offset, ignoreSentAt }: TimeInputs): number {
  let ms: number;
  if (timestamp !== null && sentAt !== null && !ignoreSentAt) ms = now - (sentAt - timestamp);
  else if (offset !== null) ms = now - offset;
  else if (timestamp !== null) ms = timestamp;
  else ms = now;
  return ms > now + FUTURE_TOLERANCE_MS ? now : ms;
}
