import { fieldError } from '../errors.ts';
import { isPlainObject } from './python.ts';
import type { SurveyConditions } from './shapes.ts';

/**
 * `conditions` (attr `conditions`): an object or null, stored as sent.
 * `conditions.actions` is kept as sent too: this service has no Actions resource, and PostHog
 * silently ignores action ids it cannot resolve.
 */
export function checkConditions(raw: unknown): SurveyConditions | null {
  if (raw === null) return null;
  if (!isPlainObject(raw)) throw fieldError('conditions', 'Conditions must be an object');
  return raw;
}
