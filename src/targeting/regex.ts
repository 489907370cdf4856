/**
 * The `regex` / `not_regex` condition patterns: compiled one way for validation (does it compile?)
 * and for the engine (case-sensitive, searched anywhere in the text, as posthog-node does).
 */

const REGEX_CACHE_LIMIT = 500;
const regexCache = new Map<string, RegExp | null>();

/** The compiled pattern, or null when it does not compile. */
export function compileRegex(pattern: string): RegExp | null {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) return cached;
  let regex: RegExp | null;
  try {
    regex = new RegExp(pattern);
  } catch {
    regex = null;
  }
  if (regexCache.size >= REGEX_CACHE_LIMIT) regexCache.clear();
  regexCache.set(pattern, regex);
  return regex;
}

/** Whether `pattern` compiles, as posthog-node compiles it. */
export function regexCompiles(pattern: string): boolean {
  return compileRegex(pattern) !== null;
}
