/**
 * When a recurring schedule runs next. Intervals advance in UTC from the previous run (calendar
 * months and years clamp to the month's last day); cron runs are the first match strictly after
 * the previous run, in the schedule's time zone (so 09:00 stays 09:00 local across DST).
 */
import { Cron } from 'croner';

export const RECURRENCE_INTERVALS = ['daily', 'weekly', 'monthly', 'yearly'] as const;
export type RecurrenceInterval = (typeof RECURRENCE_INTERVALS)[number];

/** At most this many missed occurrences are stepped over one by one before jumping to the next after now. */
export const MAX_CATCH_UP_STEPS = 1000;

export interface Recurrence {
  recurrence_interval: RecurrenceInterval | null;
  cron_expression: string | null;
  timezone: string | null;
}

function addMonthsClamped(from: Date, months: number): Date {
  const target = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months, 1, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(from.getUTCDate(), lastDay));
  return target;
}

function validZone(zone: string | null): string {
  if (zone === null) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return 'UTC';
  }
}

/** Cron fields are exactly five (minute hour day month weekday); croner would also take a seconds field. */
export function isFiveFieldCron(expression: string): boolean {
  return expression.trim().split(/\s+/).length === 5;
}

export function parseCron(expression: string, zone: string | null): Cron {
  return new Cron(expression.trim(), { timezone: validZone(zone), paused: true, legacyMode: true });
}

/** The occurrence after `previous`, or null when the recurrence has no further run. */
export function nextOccurrence(recurrence: Recurrence, previous: Date): Date | null {
  switch (recurrence.recurrence_interval) {
    case 'daily':
      return new Date(previous.getTime() + 86_400_000);
    case 'weekly':
      return new Date(previous.getTime() + 7 * 86_400_000);
    case 'monthly':
      return addMonthsClamped(previous, 1);
    case 'yearly':
      return addMonthsClamped(previous, 12);
    default:
      break;
  }
  if (recurrence.cron_expression === null) return null;
  return parseCron(recurrence.cron_expression, recurrence.timezone).nextRun(previous) ?? null;
}

export interface NextRun {
  at: Date | null;
  /** Occurrences stepped over because they were already past (not run). */
  missed: number;
}

/**
 * The first occurrence after `previous` that is still in the future at `now`: missed occurrences
 * are skipped, never run (one run per sweep). After MAX_CATCH_UP_STEPS it jumps to the first
 * occurrence after now.
 */
export function nextRunAfter(recurrence: Recurrence, previous: Date, now: Date): NextRun {
  let at = nextOccurrence(recurrence, previous);
  let steps = 1;
  while (at !== null && at.getTime() <= now.getTime() && steps < MAX_CATCH_UP_STEPS) {
    at = nextOccurrence(recurrence, at);
    steps += 1;
  }
  if (at !== null && at.getTime() <= now.getTime()) {
    at = nextOccurrence(recurrence, now);
  }
  return { at, missed: steps - 1 };
}
