import { validationError } from '../../kernel/errors.ts';

/** RFC 5321's limit on an address. */
export const EMAIL_MAX_LENGTH = 254;

/** One @, something before it, a dotless-or-dotted domain without spaces: what Django's EmailValidator lets through, roughly. */
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/;

/** Trimmed and well-formed, or a 400 on `attr` in DRF's words. */
export function cleanEmail(value: string, attr: string): string {
  const email = value.trim();
  if (email === '') throw validationError('This field may not be blank.', attr, 'blank');
  if (email.length > EMAIL_MAX_LENGTH || !EMAIL_PATTERN.test(email)) {
    throw validationError('Enter a valid email address.', attr, 'invalid');
  }
  return email;
}

/** PostHog's mask for an address shown to whoever holds an invite link: `j**n@example.com`. */
export function maskEmail(email: string): string {
  const at = email.indexOf('@');
  if (at < 2) return email;
  return `${email[0]}${'*'.repeat(at - 2)}${email.slice(at - 1)}`;
}
