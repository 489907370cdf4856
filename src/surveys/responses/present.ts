/** Statistics numbers → PostHog's answer: the dismissed adjustment, only-seen figures, rates. */
import { SURVEY_DISMISSED, SURVEY_SENT, SURVEY_SHOWN } from '../record.ts';
import { isoFromMicros } from './dates.ts';
import type { RawSurveyNumbers } from './stats-store.ts';

export interface EventStats {
  total_count: number;
  unique_persons: number;
  first_seen: string | null;
  last_seen: string | null;
  unique_persons_only_seen: number;
  total_count_only_seen: number;
}

export interface Rates {
  response_rate: number;
  dismissal_rate: number;
  unique_users_response_rate: number;
  unique_users_dismissal_rate: number;
}

export interface StatsBody {
  stats: Record<string, EventStats>;
  rates: Rates;
}

export const ZERO_RATES: Rates = { response_rate: 0, dismissal_rate: 0, unique_users_response_rate: 0, unique_users_dismissal_rate: 0 };

/**
 * Python's round(x, 2) for the (non-negative) values rates take: the double's exact decimal
 * expansion rounded half to even, so 33.333… → 33.33 and 2.675 → 2.67 (it is stored below 2.675).
 */
export function roundTwo(value: number): number {
  const [whole, fraction] = value.toFixed(100).split('.');
  const truncated = Number(`${whole}.${fraction.slice(0, 2)}`);
  const rest = fraction.slice(2);
  const tie = /^50*$/.test(rest);
  const up = tie ? Number(fraction[1]) % 2 === 1 : rest[0] >= '5';
  return up ? Number((truncated + 0.01).toFixed(2)) : truncated;
}

/** 0 when there is nothing to divide by (PostHog would fail with a 500 there). */
const percent = (part: number, whole: number) => (whole === 0 ? 0 : roundTwo((part / whole) * 100));

const iso = (micros: number | null) => (micros === null ? null : isoFromMicros(micros));

function eventStats(total: number, persons: number, first: number | null, last: number | null): EventStats {
  return { total_count: total, unique_persons: persons, first_seen: iso(first), last_seen: iso(last), unique_persons_only_seen: 0, total_count_only_seen: 0 };
}

export function presentStats(numbers: RawSurveyNumbers): StatsBody {
  const shown = eventStats(numbers.shownEvents, numbers.shownPersons, numbers.shownFirst, numbers.shownLast);
  const dismissed = eventStats(
    numbers.dismissedEvents,
    Math.max(0, numbers.dismissedPersons - numbers.dismissedAndSentPersons),
    numbers.dismissedFirst,
    numbers.dismissedLast,
  );
  const sent = eventStats(numbers.responses, numbers.respondingPersons, numbers.responsesFirst, numbers.responsesLast);
  shown.unique_persons_only_seen = Math.max(0, shown.unique_persons - dismissed.unique_persons - sent.unique_persons);
  shown.total_count_only_seen = Math.max(0, shown.total_count - dismissed.total_count - sent.total_count);
  const rates =
    shown.total_count > 0
      ? {
          response_rate: percent(sent.total_count, shown.total_count),
          dismissal_rate: percent(dismissed.total_count, shown.total_count),
          unique_users_response_rate: percent(sent.unique_persons, shown.unique_persons),
          unique_users_dismissal_rate: percent(dismissed.unique_persons, shown.unique_persons),
        }
      : { ...ZERO_RATES };
  return { stats: { [SURVEY_SHOWN]: shown, [SURVEY_DISMISSED]: dismissed, [SURVEY_SENT]: sent }, rates };
}
