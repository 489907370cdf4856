import type { SurveyWriteBody } from '../schemas.ts';
import { fieldError } from '../errors.ts';
import { isMissing, isPlainObject, isTruthy } from './python.ts';

const FIELDS_NOT_ALLOWED = ['linked_flag_id', 'targeting_flag_filters'] as const;
/** Display conditions a hosted page cannot honour; `actions` and `events` only with values. */
const CONDITIONS_NOT_ALLOWED = ['url', 'urlMatchType', 'selector', 'seenSurveyWaitPeriodInDays', 'linkedFlagVariant', 'deviceTypes', 'deviceTypesMatchType'];

/**
 * Rule 10: a request that sets `type: "external_survey"` may not carry in-app targeting
 *. PostHog collects a dict and reports its first key: checked in that key order.
 * A PATCH that does not send `type` is not checked.
 */
export function checkExternalSurvey(data: SurveyWriteBody): void {
  if (data.type !== 'external_survey') return;
  for (const field of FIELDS_NOT_ALLOWED) {
    if (!isMissing(data[field])) throw fieldError(field, `${field} is not allowed for external surveys`);
  }

  const conditions = data.conditions;
  if (isPlainObject(conditions) && isTruthy(conditions)) {
    const offending = CONDITIONS_NOT_ALLOWED.filter((field) => !isMissing(conditions[field]));
    for (const field of ['actions', 'events']) {
      const value = conditions[field];
      if (isPlainObject(value) && isTruthy(value.values)) offending.push(field);
    }
    if (offending.length > 0) {
      throw fieldError('conditions', `The following condition fields are not allowed for external surveys: ${offending.join(', ')}`);
    }
  }

  const appearance = data.appearance;
  if (isPlainObject(appearance) && !isMissing(appearance.surveyPopupDelaySeconds)) {
    throw fieldError('appearance', 'surveyPopupDelaySeconds is not allowed for external surveys');
  }
}
