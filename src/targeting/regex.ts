/**
 * The `regex` / `not_regex` condition patterns: the one place a stored pattern is compiled and
 * run, for validation (why a pattern is refused) and for the engine (does it occur in a text).
 *
 * Patterns mean what JavaScript's `new RegExp(pattern)` means (case-sensitive, searched anywhere,
 * as posthog-node reads them), but run on a linear-time engine (re2js, no backtracking), so no
 * pattern and no text can hold the event loop: regex-syntax.ts rewrites the pattern, and the
 * sizes below bound the work of one match. docs/evaluation.md lists what is refused and why.
 */
import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import { engineText } from './regex-charsets.ts';
import { MAX_REPEAT, translatePattern } from './regex-syntax.ts';

/** The longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 1000;
/** The largest compiled program accepted: engine instructions, about one per character a match spans (`x{500}` is 500). */
export const MAX_PROGRAM_SIZE = 1500;
/** Texts longer than this (UTF-16 code units) are not searched: the condition fails, for `regex` and `not_regex` alike. */
export const MAX_MATCHED_LENGTH = 4096;

const CACHE_ENTRIES = 500;

type Compiled = { regex: RE2JS; problem: null } | { regex: null; problem: string };

const cache = new LRUCache<string, Compiled>({ max: CACHE_ENTRIES });

function refuse(problem: string): Compiled {
  return { regex: null, problem };
}

function compile(pattern: string): Compiled {
  if (pattern.length > MAX_PATTERN_LENGTH) return refuse(`patterns are limited to ${MAX_PATTERN_LENGTH} characters`);
  try {
    new RegExp(pattern); // parsed, never run: the syntax JavaScript accepts is the syntax we accept
  } catch (error) {
    return refuse((error as Error).message);
  }
  const translation = translatePattern(pattern);
  if ('problem' in translation) return refuse(translation.problem);
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(translation.source);
  } catch (error) {
    const message = (error as Error).message;
    if (message.includes('repeat')) return refuse(`nested repetitions may not multiply beyond ${MAX_REPEAT} ((a{100}){100} does)`);
    return refuse(`the linear-time engine cannot run it (${message})`);
  }
  if (regex.programSize() > MAX_PROGRAM_SIZE) return refuse(`the pattern is too large: it compiles to more than ${MAX_PROGRAM_SIZE} steps (a repeated part counts as often as it repeats)`);
  return { regex, problem: null };
}

function compiled(pattern: string): Compiled {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    entry = compile(pattern);
    cache.set(pattern, entry);
  }
  return entry;
}

/** Why `pattern` cannot be a `regex`/`not_regex` condition value; null when it can. */
export function regexProblem(pattern: string): string | null {
  return compiled(pattern).problem;
}

const SHOWN_PATTERN_LENGTH = 100;

/** The validation message for a `regex`/`not_regex` condition value that is refused; null when it is accepted. */
export function regexValueError(operator: string, pattern: string): string | null {
  const problem = regexProblem(pattern);
  if (problem === null) return null;
  const shown = pattern.length > SHOWN_PATTERN_LENGTH ? `${pattern.slice(0, SHOWN_PATTERN_LENGTH)}…` : pattern;
  return `Invalid regular expression for operator ${operator}: ${shown} (${problem})`;
}

/**
 * Whether `pattern` occurs in `text`; null when it cannot be told: the pattern is refused (stored
 * before the rules above, or inserted directly) or the text is longer than MAX_MATCHED_LENGTH.
 * Callers make a null fail the condition both ways, as an invalid pattern always has.
 */
export function matchRegex(pattern: string, text: string): boolean | null {
  const { regex } = compiled(pattern);
  if (regex === null || text.length > MAX_MATCHED_LENGTH) return null;
  return regex.test(engineText(text));
}
