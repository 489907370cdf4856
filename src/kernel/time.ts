export const DAY_MS = 86_400_000;

/** Whole UTC days since the epoch: the calendar day a moment falls on. */
export const utcDay = (moment: Date): number => Math.floor(moment.getTime() / DAY_MS);

/** `YYYY-MM-DD` (UTC). */
export const isoDay = (moment: Date): string => moment.toISOString().slice(0, 10);

/** ISO 8601 in UTC with `Z`, the one timestamp format the API answers with. */
export function isoUtc(value: Date): string;
export function isoUtc(value: Date | null): string | null;
export function isoUtc(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

const FIRST_STORABLE_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_STORABLE_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Within the years 1 to 9999 (UTC): what Python's datetime (PostHog) and the ISO output can hold. */
export const withinStorableYears = (ms: number): boolean => ms >= FIRST_STORABLE_MS && ms <= LAST_STORABLE_MS;

// The date and time fields of an RFC 3339 date-time (its shape is checked by the schema's format).
const DATE_TIME_FIELDS = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)/;

/**
 * Whether an RFC 3339 date-time names a moment the service can store and answer with: RFC 3339
 * allows a leap second (`23:59:60`) and year 0, which JavaScript's Date, Python's datetime and the
 * API's output cannot hold.
 */
export function isStorableDateTime(text: string): boolean {
  const fields = DATE_TIME_FIELDS.exec(text);
  if (!fields) return false;
  if (Number(fields[1]) < 1 || Number(fields[6]) > 59) return false;
  // Date.parse wants `±hh:mm`; RFC 3339's schema check also lets `±hh` and `±hhmm` through.
  const normalized = text.replace(' ', 'T').replace(/([+-]\d\d):?(\d\d)?$/, (_m, hours: string, minutes?: string) => `${hours}:${minutes ?? '00'}`);
  const ms = Date.parse(normalized);
  return Number.isFinite(ms) && withinStorableYears(ms);
}
