import type { SurveyWriteBody } from '../schemas.ts';
import { isBefore, parseInstant, pythonDatetimeStr, utcMidnight } from './dates.ts';
import { fieldError } from '../errors.ts';

/**
 * Rules 6–8 on the response sampling fields of this request, raised as dicts, so
 * attr is the field. The schema already made the numbers non-negative integers.
 *
 * PostHog compares `response_sampling_interval > 0` even when the interval is null and fails with a
 * 500; here a positive `response_sampling_limit` without an interval is a clean 400 on
 * `response_sampling_interval`.
 */
export function checkResponseSampling(data: SurveyWriteBody, now: Date): void {
  const start = data.response_sampling_start_date;
  if (start !== undefined && start !== null) {
    const instant = parseInstant(start);
    const today = utcMidnight(now);
    if (instant && isBefore(instant, today)) {
      throw fieldError(
        'response_sampling_start_date',
        `Response sampling start date must be today or a future date in UTC. Got ${pythonDatetimeStr(instant)} when current time is ${pythonDatetimeStr(today)}`,
      );
    }
  }

  const interval = data.response_sampling_interval;
  if (interval !== undefined && interval !== null && interval <= 0) {
    throw fieldError('response_sampling_interval', 'Response sampling interval must be greater than 0.');
  }

  const limit = data.response_sampling_limit;
  if (limit === undefined || limit === null || limit <= 0) return;
  if (interval === undefined || interval === null) {
    throw fieldError('response_sampling_interval', 'Response sampling interval should be set if response_sampling_limit is set.');
  }
  if (start === undefined || start === null) {
    // The message is PostHog's, word for word (it names the wrong field).
    throw fieldError(
      'response_sampling_start_date',
      'Response sampling start date should be set if response_sampling_start_date is not zero.',
    );
  }
}
