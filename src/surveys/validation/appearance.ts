import { appearanceError } from '../errors.ts';
import { isMissing, isPlainObject } from './python.ts';
import { sanitizeText } from './sanitize.ts';
import type { SurveyAppearance } from './shapes.ts';

/** The appearance texts the SDK may render as HTML. */
const SANITISED_TEXTS = ['thankYouMessageHeader', 'thankYouMessageDescription', 'thankYouMessageCloseButtonText'];
const CONTENT_TYPES = ['text', 'html'];

/**
 * `appearance` (attr `appearance`): a free-form object, stored as sent apart from
 * the sanitised thank-you texts. Null is allowed.
 *
 * Decisions where PostHog would fail with a 500 or is silent:
 * - a thank-you text that is not a string is rejected (`thankYouMessageHeader must be a string`):
 *   posthog-js may inject it as HTML, so an unsanitised array or object must not be stored;
 * - `surveyPopupDelaySeconds` that is not a number gets the rule's own message;
 * - `whiteLabel: true` is allowed: this service has no plans or paywall, so PostHog's
 *   "You need to upgrade to PostHog Enterprise to use white labelling" never applies.
 */
export function checkAppearance(raw: unknown): SurveyAppearance | null {
  if (raw === null) return null;
  if (!isPlainObject(raw)) throw appearanceError('Appearance must be an object');
  const appearance: SurveyAppearance = { ...raw };

  for (const field of SANITISED_TEXTS) {
    const value = raw[field];
    if (isMissing(value)) continue;
    if (typeof value !== 'string') throw appearanceError(`${field} must be a string`);
    appearance[field] = sanitizeText(value);
  }

  const contentType = raw.thankYouMessageDescriptionContentType;
  if (!isMissing(contentType) && contentType !== '' && !CONTENT_TYPES.includes(contentType as string)) {
    throw appearanceError("thankYouMessageDescriptionContentType must be one of ['text', 'html']");
  }

  const delay = raw.surveyPopupDelaySeconds;
  if (!isMissing(delay) && (typeof delay !== 'number' || delay < 0)) {
    throw appearanceError('Survey popup delay seconds must be a positive integer');
  }

  if (!isMissing(raw.whiteLabel) && typeof raw.whiteLabel !== 'boolean') {
    throw appearanceError('whiteLabel must be a boolean');
  }
  return appearance;
}
