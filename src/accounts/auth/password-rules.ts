import { ZxcvbnFactory, type ZxcvbnResult } from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';
import * as zxcvbnEnglish from '@zxcvbn-ts/language-en';
import { validationError } from '../../kernel/errors.ts';
import { similarToPerson } from '../errors.ts';

export const PASSWORD_MIN_LENGTH = 8;
/** Long passphrases fit; the bound keeps one request's hashing work fixed. */
export const PASSWORD_MAX_LENGTH = 256;
/**
 * zxcvbn's estimate: at least "safely unguessable" (about 10^8 guesses), as PostHog's validator
 * asks. Below: 0 too guessable, 1 very guessable (under 10^6), 2 somewhat guessable (under 10^8).
 */
export const MIN_STRENGTH_SCORE = 3;
/**
 * zxcvbn sees at most this many characters. Its matching cost grows fast with length (seconds for
 * a few hundred characters of l33t-looking text); what follows the first 64 characters only adds
 * strength, so a password judged on them is judged no weaker than it is.
 */
export const STRENGTH_INPUT_MAX = 64;
/** How many l33t substitutions zxcvbn tries undoing at once: more multiplies its work, not its judgement. */
const L33T_MAX_SUBSTITUTIONS = 4;
/** Words that say this service: as guessable as the person's own name. */
const SITE_WORDS = ['bellwether', 'posthog'];

let estimator: ZxcvbnFactory | null = null;

/** Built on first use: the dictionaries (common passwords, English words and names) take a moment to load. */
function strengthEstimator(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...zxcvbnCommon.dictionary, ...zxcvbnEnglish.dictionary },
    graphs: zxcvbnCommon.adjacencyGraphs,
    translations: zxcvbnEnglish.translations,
    l33tMaxSubstitutions: L33T_MAX_SUBSTITUTIONS,
    maxLength: STRENGTH_INPUT_MAX,
  });
  return estimator;
}

/** The person's words: their e-mail (whole, its name part, the words of both) and names, lower-cased, longest first. */
function personWords(attributes: readonly string[]): string[] {
  const words = new Set<string>();
  for (const attribute of attributes) {
    const value = attribute.trim().toLowerCase();
    if (value.length < 3) continue;
    words.add(value);
    const [local, domain = ''] = value.split('@');
    words.add(local);
    for (const word of [...local.split(/[\s._+-]+/), ...domain.split('.').slice(0, -1)]) if (word.length >= 3) words.add(word);
  }
  return [...words].sort((a, b) => b.length - a.length);
}

/** Made of the person's words, in any order, with fewer than 4 other characters (`Tester.Rules`, `rulestester1`). */
function tooSimilar(password: string, words: readonly string[]): boolean {
  let rest = password.toLowerCase();
  let used = false;
  for (const word of words) {
    if (!rest.includes(word)) continue;
    rest = rest.split(word).join('');
    used = true;
  }
  return used && rest.length < 4;
}

/** The person's own words made it weak: zxcvbn matched their e-mail or name (not this service's name). */
function weakenedByPerson(result: ZxcvbnResult): boolean {
  return result.sequence.some(
    (match) => match.pattern === 'dictionary' && match.dictionaryName === 'userInputs' && !SITE_WORDS.includes(String(match.matchedWord)),
  );
}

/**
 * The rules, in this order (a 400 on `attr`, `password` by default, for the first one broken):
 * 8 to 256 characters; not entirely numeric; not made of the person's e-mail, its words or their
 * names with fewer than 4 other characters; and zxcvbn's estimate of its first 64
 * characters, with the person's e-mail, name and this service's name as known words, at least
 * "safely unguessable" (score 3 of 4). See docs/accounts.md.
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
  if (/^\d+$/.test(password)) throw validationError('This password is entirely numeric.', attr, 'password_entirely_numeric');
  const words = personWords(attributes);
  if (tooSimilar(password, words)) throw similarToPerson(attr);
  const result = strengthEstimator().check(password.slice(0, STRENGTH_INPUT_MAX), [...words, ...SITE_WORDS]);
  if (result.score >= MIN_STRENGTH_SCORE) return;
  if (weakenedByPerson(result)) throw similarToPerson(attr);
  const advice = [result.feedback.warning, ...result.feedback.suggestions].filter((text): text is string => Boolean(text));
  throw validationError(['This password is too weak.', ...advice].join(' '), attr, 'password_too_weak');
}
