/**
 * Bucketing: sha1 of `${flagKey}.${identifier}${salt}`, the first 15 hex digits
 * read as an integer and divided by 2^60 − 1. The integer is rounded to a double exactly once, as
 * Python's int → float and posthog-node's parseInt do (sha1.ts).
 */
import { sha1Leading60, sha1Leading60Joined, sha1Prefix, sha1Suffix, utf8, type Sha1Prefix, type Sha1Suffix } from './sha1.ts';
import type { FlagVariant } from './types.ts';

const LONG_SCALE = 1152921504606846975; // 0xfffffffffffffff (as a double, 2^60)

/**
 * A flag as the rollout and variant hashes take it: its key, or `hashPrefixOf(key)` from callers
 * that hash the same flag for many people (the text is then not encoded again each time).
 */
export type HashedFlag = string | Sha1Prefix;

/** `${flagKey}.`, the start of every bucketing text of the flag, read once for SHA-1. */
export function hashPrefixOf(flagKey: string): Sha1Prefix {
  return sha1Prefix(utf8(`${flagKey}.`));
}

// One person's identifier is hashed for every flag in a row: its encodings (with each salt) are
// kept until the next one.
let lastIdentifier = '';
let lastPlain: Sha1Suffix = sha1Suffix(utf8(''));
let lastVariant: Sha1Suffix | null = null;

function suffixOf(identifier: string, salt: '' | 'variant'): Sha1Suffix {
  if (identifier !== lastIdentifier) {
    lastPlain = sha1Suffix(utf8(identifier));
    lastVariant = null;
    lastIdentifier = identifier;
  }
  if (salt === '') return lastPlain;
  return (lastVariant ??= sha1Suffix(utf8(`${identifier}variant`)));
}

function hashOf(flag: HashedFlag, identifier: string, salt: '' | 'variant'): number {
  if (typeof flag === 'string') return flagHash(flag, identifier, salt);
  return sha1Leading60Joined(flag, suffixOf(identifier, salt)) / LONG_SCALE;
}

/** A number in [0, 1] for this flag and identifier; salt `""` for rollouts, `"variant"` for variants. */
export function flagHash(flagKey: string, identifier: string, salt = ''): number {
  // `${flagKey}.${identifier}${salt}`, hashed without building the text.
  return sha1Leading60(flagKey, '.', identifier, salt) / LONG_SCALE;
}

/** The holdout hash: `holdout-${identifier}`, the same for every flag. */
export function holdoutHash(identifier: string): number {
  return sha1Leading60('holdout-', identifier) / LONG_SCALE;
}

/** A rollout passes when the hash is at most `percentage / 100`; null means 100 %. */
export function inRollout(flag: HashedFlag, identifier: string, percentage: number | null | undefined): boolean {
  if (percentage === null || percentage === undefined) return true;
  // The hash never exceeds 1 ((2^60 − 1) and its divisor round to the same double), so 100 % needs no hash.
  if (typeof percentage === 'number' && percentage >= 100) return true;
  return hashOf(flag, identifier, '') <= percentage / 100;
}

/**
 * The variant whose range [min, max) holds the variant hash; ranges are laid end to end in the
 * stored order. Null when the percentages add up to less than the hash (the flag is then plain true).
 */
export function pickVariant(flag: HashedFlag, identifier: string, variants: readonly FlagVariant[]): string | null {
  if (variants.length === 0) return null;
  const hash = hashOf(flag, identifier, 'variant');
  let min = 0;
  for (const variant of variants) {
    // A missing percentage poisons the ranges that follow (NaN), as in posthog-node.
    const max = min + Number(variant.rollout_percentage) / 100;
    if (hash >= min && hash < max) return variant.key;
    min = max;
  }
  return null;
}
