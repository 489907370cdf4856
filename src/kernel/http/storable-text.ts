/**
 * Text PostgreSQL cannot store: the NUL character (refused in `text` and `jsonb`) and UTF-16
 * surrogate halves without their partner (no UTF-8 form). JSON can carry both as escapes
 * (`\u0000`, `\ud800`); query strings can carry NUL (`%00`).
 */
import { ApiError, validationError } from '../errors.ts';

const UNSTORABLE = /[\u0000\ud800-\udfff]/;
const NUL = /\u0000/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** JSON text that may decode to unstorable text (a cheap test before walking the parsed value). */
export const MAY_HOLD_UNSTORABLE_ESCAPE = /\\u0000|\\u[dD][89a-fA-F]/;

export type UnstorableProblem = { kind: 'nul' } | { kind: 'surrogate'; codePoint: number };

/** What makes `text` unstorable, or null when PostgreSQL can hold it. */
export function unstorableProblem(text: string): UnstorableProblem | null {
  if (!UNSTORABLE.test(text)) return null;
  if (text.includes('\u0000')) return { kind: 'nul' };
  const lone = LONE_SURROGATE.exec(text);
  return lone ? { kind: 'surrogate', codePoint: lone[0].charCodeAt(0) } : null;
}

export interface UnstorableFound {
  /** Where in the value: keys and indexes from the top (for a bad key: the object holding it). */
  path: (string | number)[];
  problem: UnstorableProblem;
}

/** The first string (or object key) of a JSON value that PostgreSQL cannot store. */
export function findUnstorableText(value: unknown, path: (string | number)[] = []): UnstorableFound | null {
  if (typeof value === 'string') {
    const problem = unstorableProblem(value);
    return problem ? { path, problem } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], [...path, i]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const keyProblem = unstorableProblem(key);
      if (keyProblem) return { path, problem: keyProblem };
      const found = findUnstorableText(inner, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** DRF's messages (ProhibitNullCharactersValidator, ProhibitSurrogateCharactersValidator). */
export function unstorableTextError(found: UnstorableFound): ApiError {
  const attr = found.path.length ? found.path.join('__') : null;
  if (found.problem.kind === 'nul') return validationError('Null characters are not allowed.', attr, 'null_characters_not_allowed');
  const hex = found.problem.codePoint.toString(16).toUpperCase();
  return validationError(`Surrogate characters are not allowed: U+${hex}.`, attr, 'surrogate_characters_not_allowed');
}

/** `text` with NULs and lone surrogates replaced by U+FFFD (what ingestion stores, as PostHog does). */
export function storableString(text: string): string {
  if (!UNSTORABLE.test(text)) return text;
  return text.replace(NUL, '\ufffd').replace(LONE_SURROGATES, '\ufffd');
}

/** The value with every string (and object key) made storable; unchanged parts are shared. */
export function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableString(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[storableString(key)] = storableValue(inner);
    return out;
  }
  return value;
}
