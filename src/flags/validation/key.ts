import { requiredField, validationError } from '../../kernel/errors.ts';
import { nullNotAllowed } from '../errors.ts';

export const KEY_MAX_LENGTH = 400;
const KEY_FORMAT = /^[a-zA-Z0-9_-]+$/;

/**
 * The field-level checks DRF runs before `validate_key`: required, null, string,
 * blank, max length. The key is returned as sent (not trimmed: a key with surrounding blanks fails
 * the format check instead, so the uniqueness check and the stored value always see the same string).
 */
export function parseKeyField(raw: unknown): string {
  if (raw === undefined) throw requiredField('key');
  if (raw === null) throw nullNotAllowed('key');
  if (typeof raw !== 'string') throw validationError('Not a valid string.', 'key', 'invalid_input');
  if (raw.trim() === '') throw validationError('This field may not be blank.', 'key', 'blank');
  if ([...raw].length > KEY_MAX_LENGTH) {
    throw validationError(`Ensure this field has no more than ${KEY_MAX_LENGTH} characters.`, 'key', 'max_length');
  }
  return raw;
}

/** The format rule of `validate_key`; PostHog checks uniqueness before it. */
export function checkKeyFormat(key: string): string {
  if (!KEY_FORMAT.test(key)) {
    throw validationError('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key');
  }
  return key;
}

/** `parseKeyField` then `checkKeyFormat`: everything about a key except its uniqueness. */
export function validateKeyFormat(key: unknown): string {
  return checkKeyFormat(parseKeyField(key));
}
