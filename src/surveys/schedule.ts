/**
 * The lifecycle fields a survey recomputes on every save, as pure functions:
 * create, update, duplicate and the periodic jobs all call them.
 */
import { validationError } from '../kernel/errors.ts';
import { DAY_MS } from '../kernel/time.ts';
import type { SurveyRecord } from './record.ts';

/** PostHog's MAX_ITERATION_COUNT: at most this many start dates are computed. */
export const MAX_ITERATIONS = 500;

export type IterationInput = Pick<
  SurveyRecord,
  'iteration_count' | 'iteration_frequency_days' | 'start_date' | 'current_iteration' | 'current_iteration_start_date'
>;
export type IterationFields = Pick<SurveyRecord, 'iteration_start_dates' | 'current_iteration' | 'current_iteration_start_date'>;

/**
 * On every save: no count or frequency (null or 0) → `[]` and no current iteration; no
 * `start_date` → start dates null (current iteration kept); else one start date per iteration from
 * `start_date` (time of day kept), and iteration 1 starting at `start_date` when none is current.
 */
export function iterationFields(survey: IterationInput): IterationFields {
  const count = survey.iteration_count ?? 0;
  const frequency = survey.iteration_frequency_days ?? 0;
  if (count === 0 || frequency === 0) {
    return { iteration_start_dates: [], current_iteration: null, current_iteration_start_date: null };
  }
  if (survey.start_date === null) {
    return {
      iteration_start_dates: null,
      current_iteration: survey.current_iteration,
      current_iteration_start_date: survey.current_iteration_start_date,
    };
  }
  const start = survey.start_date.getTime();
  const dates = Array.from({ length: Math.min(count, MAX_ITERATIONS) }, (_, k) => new Date(start + k * frequency * DAY_MS));
  if (!survey.current_iteration) {
    return { iteration_start_dates: dates, current_iteration: 1, current_iteration_start_date: survey.start_date };
  }
  return { iteration_start_dates: dates, current_iteration: survey.current_iteration, current_iteration_start_date: survey.current_iteration_start_date };
}

/**
 * PostHog's PATCH quirk: a body with `iteration_count` also sets `iteration_frequency_days` to the
 * body's value, so leaving it out clears it (and with it the iteration data).
 */
export function patchedIterationFrequency(body: { iteration_count?: unknown; iteration_frequency_days?: number | null }, stored: number | null): number | null {
  if (body.iteration_count !== undefined) return body.iteration_frequency_days ?? null;
  return body.iteration_frequency_days !== undefined ? body.iteration_frequency_days : stored;
}

/** A recurring survey cannot be cut below the iteration it is in. Call inside the update's transaction. */
export function checkRecurrenceChange(iterationCountSent: number | null | undefined, currentIteration: number | null): void {
  if (iterationCountSent === undefined || iterationCountSent === null) return;
  if (currentIteration !== null && iterationCountSent > 0 && currentIteration > iterationCountSent) {
    throw validationError(`Cannot change survey recurrence to ${iterationCountSent}, should be at least ${currentIteration}`);
  }
}

/** One day of the adaptive sampling schedule. */
export interface DailyLimit {
  /** ISO 8601 UTC (the day's moment: `response_sampling_start_date` + n days). */
  date: string;
  /** Cumulative responses allowed up to and including this day. */
  daily_response_limit: number;
  /** The sampling flag's rollout on this day; the last day is 100. */
  rollout_percentage: number;
}

export type SamplingInput = Pick<
  SurveyRecord,
  'response_sampling_start_date' | 'response_sampling_interval_type' | 'response_sampling_interval' | 'response_sampling_limit'
>;

const INTERVAL_DAYS: Record<string, number> = { day: 1, week: 7, month: 30 };

/**
 * On every save: the daily schedule, or null when there is no interval type, no (or a zero)
 * limit or interval, or no sampling start date. One entry per day over interval × (1, 7 or 30)
 * days; the cumulative limit grows by limit ÷ days, plus one on each of the first limit mod days
 * days; the rollout is 100 × (d + 1) / days rounded to 2 decimals, the last day 100.
 */
export function dailyLimitsSchedule(survey: SamplingInput): DailyLimit[] | null {
  const unit = survey.response_sampling_interval_type ? INTERVAL_DAYS[survey.response_sampling_interval_type] : undefined;
  const limit = survey.response_sampling_limit ?? 0;
  const interval = survey.response_sampling_interval ?? 0;
  const start = survey.response_sampling_start_date;
  if (unit === undefined || limit <= 0 || interval <= 0 || start === null) return null;
  const days = interval * unit;
  const perDay = Math.floor(limit / days);
  const extra = limit % days;
  const schedule: DailyLimit[] = [];
  let cumulative = 0;
  for (let d = 0; d < days; d++) {
    cumulative += perDay + (d < extra ? 1 : 0);
    schedule.push({
      date: new Date(start.getTime() + d * DAY_MS).toISOString(),
      daily_response_limit: cumulative,
      rollout_percentage: d === days - 1 ? 100 : Math.round((10_000 * (d + 1)) / days) / 100,
    });
  }
  return schedule;
}

/** A number as Python's json.dumps writes a float (`10.0`, `33.33`). */
function pythonFloat(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/**
 * `response_sampling_daily_limits` as PostHog answers it: the schedule JSON-encoded into a string,
 * with Python's separators (`", "`, `": "`) and floats; null stays null. Stored values that are not
 * a schedule array (none are written here) are encoded as plain JSON.
 */
export function renderDailyLimits(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return JSON.stringify(value);
  const entries = value.map((entry) => {
    const e = entry as Partial<DailyLimit>;
    if (typeof e.date !== 'string' || typeof e.daily_response_limit !== 'number' || typeof e.rollout_percentage !== 'number') {
      return JSON.stringify(entry);
    }
    return `{"date": ${JSON.stringify(e.date)}, "daily_response_limit": ${e.daily_response_limit}, "rollout_percentage": ${pythonFloat(e.rollout_percentage)}}`;
  });
  return `[${entries.join(', ')}]`;
}
