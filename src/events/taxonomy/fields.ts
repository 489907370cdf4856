import { validationError } from '../../kernel/errors.ts';
import { refuseNul } from './params.ts';

/** Tags as stored: trimmed, lower-cased, empty ones dropped, duplicates removed (first position kept). */
export function normalizeTags(tags: string[], attr = 'tags'): string[] {
  const seen = new Set<string>();
  for (const raw of tags) {
    refuseNul(raw, attr);
    const tag = raw.trim().toLowerCase();
    if (tag !== '') seen.add(tag);
  }
  return [...seen];
}

export interface Verification {
  verified: boolean;
  verified_at: Date | null;
  verified_by_id: number | null;
  hidden: boolean;
}

/**
 * PostHog's verified/hidden rules: both true in one request → 400 (non-field); verifying stamps
 * who and when unless already verified, and un-hides; un-verifying clears the stamps; hiding
 * un-verifies and clears the stamps.
 */
export function applyVerification(
  before: Verification,
  body: { verified?: boolean; hidden?: boolean | null },
  actorId: number,
  now: Date,
  what: 'An event' | 'A property',
): Verification {
  if (body.verified === true && body.hidden === true) {
    throw validationError(`${what} cannot be both hidden and verified`, null);
  }
  const next = { ...before };
  if (body.verified === true) {
    if (!before.verified) {
      next.verified_at = now;
      next.verified_by_id = actorId;
    }
    next.verified = true;
    next.hidden = false;
  } else if (body.verified === false) {
    next.verified = false;
    next.verified_at = null;
    next.verified_by_id = null;
  }
  if (body.hidden === true) {
    next.hidden = true;
    next.verified = false;
    next.verified_at = null;
    next.verified_by_id = null;
  } else if (body.hidden === false || body.hidden === null) {
    next.hidden = false;
  }
  return next;
}
