import { fieldError } from '../errors.ts';
import { isPlainObject } from './python.ts';

/**
 * `conditions` (reference §2.5, attr `conditions`): an object or null, stored as sent.
 * `conditions.actions` is kept as sent too: this service has no Actions resource, and PostHog
 * silently ignores action ids it cannot resolve.
 */
export function checkConditions(raw: unknown): void {
  if (raw !== null && !isPlainObject(raw)) throw fieldError('conditions', 'Conditions must be an object');
}
