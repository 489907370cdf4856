/**
 * Dates in `is_date_before` / `is_date_after` / `is_date_exact` conditions.
 * Shared by validation and the evaluation engine, so both read a condition value the same way.
 */

const RELATIVE = /^-?(\d+)([hdwmy])$/;
const MAX_RELATIVE = 10_000;

// Date, optionally a time (T or space), optional fraction, optional Z or ±hh:mm / ±hhmm / ±hh.
const ABSOLUTE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * A relative date (`-30d`, `1w`, `6h`, `2m`, `1y`; the minus sign is optional and both mean "ago";
 * the number must be below 10000) counted back from `now` in UTC, the way current posthog-node does
 * (a month at a time, the day clamped to each month's length); otherwise an ISO 8601 date or date-time.
 * A date-time without an offset is UTC. Anything else → null.
 */
export function parseRelativeOrAbsoluteDate(value: string, now: Date): Date | null {
  return parseRelativeDate(value, now) ?? parseAbsoluteDate(value);
}

function stepBackMonths(date: Date, months: number): void {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  let day = date.getUTCDate();
  for (let back = 1; back <= months && day > 28; back++) {
    const monthLength = new Date(Date.UTC(year, month - back + 1, 0)).getUTCDate();
    day = Math.min(day, monthLength);
  }
  date.setUTCFullYear(year, month - months, day);
}

function stepBackYears(date: Date, years: number): void {
  const month = date.getUTCMonth();
  const day = years > 0 && month === 1 && date.getUTCDate() === 29 ? 28 : date.getUTCDate();
  date.setUTCFullYear(date.getUTCFullYear() - years, month, day);
}

export function parseRelativeDate(value: string, now: Date): Date | null {
  const match = RELATIVE.exec(value);
  if (!match) return null;
  const amount = Number(match[1]);
  if (amount >= MAX_RELATIVE) return null;
  const date = new Date(now.getTime());
  switch (match[2]) {
    case 'h':
      date.setUTCHours(date.getUTCHours() - amount);
      break;
    case 'd':
      date.setUTCDate(date.getUTCDate() - amount);
      break;
    case 'w':
      date.setUTCDate(date.getUTCDate() - amount * 7);
      break;
    case 'm':
      stepBackMonths(date, amount);
      break;
    default:
      stepBackYears(date, amount);
  }
  return Number.isNaN(date.getTime()) ? null : date;
}

export function parseAbsoluteDate(value: string): Date | null {
  const match = ABSOLUTE.exec(value);
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  if (utc.getUTCFullYear() !== year || utc.getUTCMonth() !== month - 1 || utc.getUTCDate() !== day) return null;
  utc.setUTCHours(hour, minute, second, Math.floor(Number(`0.${fraction || '0'}`) * 1000));
  const offset = zoneOffsetMinutes(zone);
  if (offset === null) return null;
  return new Date(utc.getTime() - offset * 60_000);
}

function zoneOffsetMinutes(zone: string): number | null {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 23 || minutes > 59) return null;
  return sign * (hours * 60 + minutes);
}
