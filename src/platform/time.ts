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
