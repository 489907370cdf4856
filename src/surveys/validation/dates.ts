/**
 * Date-times the way PostHog's messages print them. The body schema already accepted the string as
 * RFC 3339 with an offset; DRF converts it to UTC and Python's `str()` prints it as
 * `2024-05-01 10:00:00.250000+00:00` (the fraction only when not zero, always six digits).
 */
import { DAY_MS, utcDay } from '../../kernel/time.ts';

export interface UtcInstant {
  /** Whole seconds since the epoch. */
  seconds: number;
  /** 0–999999, the first six digits of the fraction as sent (DRF keeps microseconds). */
  microsecond: number;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?([Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** The instant of an RFC 3339 date-time, or null when the text is not one. */
export function parseInstant(text: string): UtcInstant | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const local = new Date(0);
  local.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  local.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11] ?? 0)) : 0;
  const seconds = local.getTime() / 1000 - offsetMinutes * 60;
  if (!Number.isFinite(seconds)) return null;
  const microsecond = m[7] ? Number(m[7].slice(0, 6).padEnd(6, '0')) : 0;
  return { seconds, microsecond };
}

export const instantOf = (date: Date): UtcInstant => {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return { seconds, microsecond: (ms - seconds * 1000) * 1000 };
};

/** Midnight UTC of the day `now` falls on. */
export function utcMidnight(now: Date): UtcInstant {
  return instantOf(new Date(utcDay(now) * DAY_MS));
}

export const isBefore = (a: UtcInstant, b: UtcInstant): boolean =>
  a.seconds < b.seconds || (a.seconds === b.seconds && a.microsecond < b.microsecond);

/** Python's `str(datetime)` of an aware UTC datetime. */
export function pythonDatetimeStr(instant: UtcInstant): string {
  const iso = new Date(instant.seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const fraction = instant.microsecond ? `.${String(instant.microsecond).padStart(6, '0')}` : '';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction}+00:00`;
}
