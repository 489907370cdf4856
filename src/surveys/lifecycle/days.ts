export const DAY_MS = 86_400_000;

/** Whole UTC days since the epoch: the calendar day a moment falls on. */
export const utcDay = (moment: Date): number => Math.floor(moment.getTime() / DAY_MS);

/** `YYYY-MM-DD` (UTC). */
export const isoDay = (moment: Date): string => moment.toISOString().slice(0, 10);
