import { validationError } from '../../kernel/errors.ts';

export const PASSWORD_MIN_LENGTH = 8;
/** Long passphrases fit; the bound keeps one request's hashing work fixed. */
export const PASSWORD_MAX_LENGTH = 256;

/** Passwords of 8 characters or more that lists of leaked passwords rank highest. */
const COMMON_PASSWORDS = new Set([
  'password', 'password1', 'password12', 'password123', 'password!', 'passw0rd', 'p@ssw0rd', 'p@ssword',
  'iloveyou', 'princess', 'sunshine', 'football', 'baseball', 'whatever', 'trustno1', 'superman',
  'starwars', 'computer', 'michelle', 'jennifer', 'corvette', 'mercedes', 'master123', 'welcome1',
  'welcome123', 'letmein1', 'letmein123', 'changeme', 'changeme1', 'qwertyui', 'qwertyuiop', 'qwerty123',
  'qwerty12', 'asdfghjk', 'asdfghjkl', 'zxcvbnm1', 'zaq12wsx', '1q2w3e4r', '1q2w3e4r5t', '1qaz2wsx',
  'q1w2e3r4', 'abcd1234', 'abc12345', 'abcdefgh', 'administrator', 'admin123', 'admin1234', 'adminadmin',
  'root1234', 'secret123', 'access14', 'dragon12', 'monkey12', 'shadow12', 'master12', 'football1',
  'baseball1', 'iloveyou1', 'bellwether', 'posthog1', 'posthog123', 'default1', 'guest123', 'test1234',
  'testtest', 'test12345', 'hello123', 'helloworld', 'welcome!', 'password1!', 'summer2024', 'winter2024',
]);

function isTrivial(password: string): boolean {
  if (/^(.)\1*$/su.test(password)) return true;
  // Runs like "abcdefgh", "87654321": each character one step from the previous.
  const codes = [...password.toLowerCase()].map((c) => c.codePointAt(0)!);
  const step = codes[1] - codes[0];
  return (step === 1 || step === -1) && codes.every((code, i) => i === 0 || code - codes[i - 1] === step);
}

function tooSimilar(password: string, attributes: readonly string[]): boolean {
  const lower = password.toLowerCase();
  return attributes.some((attribute) => {
    const value = attribute.toLowerCase();
    if (value.length < 3) return false;
    const local = value.split('@')[0];
    return lower === value || lower === local || (local.length >= 4 && lower.includes(local) && lower.length - local.length < 4);
  });
}

/**
 * Django's password validators, in its words: at least 8 characters, not a common or trivial
 * password, not entirely numeric, not the person's e-mail or name. A 400 on `password` otherwise.
 */
export function checkPasswordStrength(password: string, attributes: readonly string[] = [], attr = 'password'): void {
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw validationError(
      `This password is too short. It must contain at least ${PASSWORD_MIN_LENGTH} characters.`,
      attr,
      'password_too_short',
    );
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw validationError(`Ensure this field has no more than ${PASSWORD_MAX_LENGTH} characters.`, attr, 'max_length');
  }
  if (tooSimilar(password, attributes)) {
    throw validationError('The password is too similar to your e-mail address or name.', attr, 'password_too_similar');
  }
  if (COMMON_PASSWORDS.has(password.toLowerCase().trim()) || isTrivial(password)) {
    throw validationError('This password is too common.', attr, 'password_too_common');
  }
  if (/^\d+$/.test(password)) throw validationError('This password is entirely numeric.', attr, 'password_entirely_numeric');
}
