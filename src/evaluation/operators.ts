/**
 * One property condition against one property bag.
 *
 * Where PostHog's flags service and current posthog-node disagree, posthog-node wins, so that
 * local and remote evaluation answer alike; where posthog-node cannot decide (it asks the server),
 * the flags service's rule is used.
 *
 * Missing properties. posthog-node never decides a condition on a property the caller did not
 * supply: it asks the server. The server decides with the stored properties merged under the sent
 * ones: a property still absent matches `is_not_set` and the negated operators (`is_not`,
 * `not_icontains`, `not_icontains_multi`, `not_regex`) and nothing else. So when the caller supplies
 * every property a flag names, both sides see the same values and agree; the missing-property rule
 * only answers questions the SDK hands to the server. A key whose value is `undefined` is absent.
 *
 * Null values (present, JSON null): `is_set` matches and `is_not_set` does not (posthog-node);
 * `exact`, `is_not`, `icontains`, `not_icontains`, `regex`, `not_regex` compare the text `null`;
 * every other operator fails.
 */
import type { FlagProperty } from './types.ts';
import { conditionDate, dateOf } from './dates.ts';
import { caretRange, compareVersions, inRange, parseVersion, tildeRange, wildcardRange, type Version, type VersionRange } from './semver.ts';
import { matchRegex } from '../targeting/regex.ts';
import { asciiLower, isBooleanLike, isTruthyValue, jsonText, looseNumber, looseText } from './values.ts';

const MATCH_WHEN_MISSING: ReadonlySet<string> = new Set(['is_not', 'not_icontains', 'not_icontains_multi', 'not_regex']);
const NULL_AS_TEXT: ReadonlySet<string> = new Set(['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex']);

export function hasProperty(bag: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(bag, key) && bag[key] !== undefined;
}

/** A property condition read once: whether it holds for a property bag at a time. */
export type PropertyMatcher = (bag: Record<string, unknown>, now: Date) => boolean;

/** What an operator does with a present value (not `undefined`; null only for NULL_AS_TEXT operators). */
type ValueTest = (actual: unknown, now: Date) => boolean;

/**
 * The condition compiled: its key's text, its operator and what the condition value reads as
 * (lower-cased texts, versions, ranges) worked out once, so that evaluating it for many people
 * only reads the person's value. Holds exactly when `matchProperty` would.
 */
export function compileProperty(property: FlagProperty): PropertyMatcher {
  const key = looseText(property.key);
  const operator = property.operator || 'exact';
  if (operator === 'is_set') return (bag) => hasProperty(bag, key);
  if (operator === 'is_not_set') return (bag) => !hasProperty(bag, key);
  const whenMissing = MATCH_WHEN_MISSING.has(operator);
  const nullAsText = NULL_AS_TEXT.has(operator);
  const expected = property.value;
  const test = expected === undefined ? null : valueTest(operator, expected);
  return (bag, now) => {
    if (!hasProperty(bag, key)) return whenMissing;
    const actual = bag[key];
    if (actual === null && !nullAsText) return false;
    return test === null ? false : test(actual, now);
  };
}

const compiled = new WeakMap<FlagProperty, PropertyMatcher>();

/**
 * Does the property condition hold for these properties? (`cohort` and `flag` conditions are
 * handled elsewhere.) A condition is compiled the first time it is seen; conditions are not
 * changed once evaluated.
 */
export function matchProperty(property: FlagProperty, bag: Record<string, unknown>, now: Date): boolean {
  let matcher = compiled.get(property);
  if (matcher === undefined) {
    matcher = compileProperty(property);
    compiled.set(property, matcher);
  }
  return matcher(bag, now);
}

function valueTest(operator: string, expected: unknown): ValueTest | null {
  switch (operator) {
    case 'exact': {
      const exact = exactTest(expected);
      return (actual) => exact(actual);
    }
    case 'is_not': {
      const exact = exactTest(expected);
      return (actual) => !exact(actual);
    }
    case 'icontains': {
      const needle = asciiLower(looseText(expected));
      return (actual) => asciiLower(looseText(actual)).includes(needle);
    }
    case 'not_icontains': {
      const needle = asciiLower(looseText(expected));
      return (actual) => !asciiLower(looseText(actual)).includes(needle);
    }
    case 'icontains_multi': {
      const needles = containsNeedles(expected);
      return (actual) => containsAnyNeedle(actual, needles);
    }
    case 'not_icontains_multi': {
      const needles = containsNeedles(expected);
      return (actual) => !containsAnyNeedle(actual, needles);
    }
    case 'regex':
    case 'not_regex': {
      const pattern = looseText(expected);
      const wanted = operator === 'regex';
      return (actual) => {
        const found = matchRegex(pattern, looseText(actual));
        if (found === null) return false; // a refused pattern or a text too long to search fails both ways
        return found === wanted;
      };
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const number = looseNumber(expected);
      const text = looseText(expected);
      return (actual) => {
        const a = looseNumber(actual);
        if (Number.isFinite(a) && Number.isFinite(number)) return ordered(operator, a, number);
        return ordered(operator, looseText(actual), text);
      };
    }
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact': {
      // A relative condition value depends on the clock: read again when `now` moves.
      let readAt = Number.NaN;
      let target: Date | null = null;
      return (actual, now) => {
        if (now.getTime() !== readAt) {
          target = conditionDate(expected, now);
          readAt = now.getTime();
        }
        return compareDates(operator, actual, target);
      };
    }
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte': {
      const target = parseVersion(expected);
      return (actual) => compareSemver(operator, actual, target);
    }
    case 'semver_tilde': {
      const range = tildeRange(expected);
      return (actual) => versionInRange(actual, range);
    }
    case 'semver_caret': {
      const range = caretRange(expected);
      return (actual) => versionInRange(actual, range);
    }
    case 'semver_wildcard': {
      const range = wildcardRange(expected);
      return (actual) => versionInRange(actual, range);
    }
    default:
      return () => false; // unknown operators (and `in`/`not_in` outside a cohort property) match nothing
  }
}

/**
 * `exact`: a boolean-like condition value (`true`, `"False"`, a list of those) compares truth
 * values (`"true"`, `"TRUE"`, `true` are the same; anything that is not true-like counts as false);
 * a list means "any of"; otherwise the texts compare case-insensitively.
 */
export function exactMatch(expected: unknown, actual: unknown): boolean {
  return exactTest(expected)(actual);
}

function exactTest(expected: unknown): (actual: unknown) => boolean {
  if (isBooleanLike(expected)) {
    const truth = isTruthyValue(expected);
    return (actual) => truth === isTruthyValue(actual);
  }
  if (Array.isArray(expected)) {
    const texts = expected.map((item) => jsonText(item).toLowerCase());
    return (actual) => texts.includes(jsonText(actual).toLowerCase());
  }
  const text = jsonText(expected).toLowerCase();
  return (actual) => jsonText(actual).toLowerCase() === text;
}

function containsNeedles(expected: unknown): string[] {
  return (Array.isArray(expected) ? expected : [expected]).map((needle) => asciiLower(looseText(needle)));
}

function containsAnyNeedle(actual: unknown, needles: readonly string[]): boolean {
  if (needles.length === 0) return false;
  const haystack = asciiLower(looseText(actual));
  return needles.some((needle) => haystack.includes(needle));
}

/** Numerically when both sides read as finite numbers (`parseFloat`), else as texts. */
function compareOrdered(operator: 'gt' | 'gte' | 'lt' | 'lte', actual: unknown, expected: unknown): boolean {
  const a = looseNumber(actual);
  const b = looseNumber(expected);
  if (Number.isFinite(a) && Number.isFinite(b)) return ordered(operator, a, b);
  return ordered(operator, looseText(actual), looseText(expected));
}

function ordered<T extends number | string>(operator: 'gt' | 'gte' | 'lt' | 'lte', a: T, b: T): boolean {
  switch (operator) {
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
    case 'lt':
      return a < b;
    default:
      return a <= b;
  }
}

function compareDates(operator: string, actual: unknown, target: Date | null): boolean {
  const value = dateOf(actual);
  if (!target || !value) return false;
  if (operator === 'is_date_before') return value.getTime() < target.getTime();
  if (operator === 'is_date_after') return value.getTime() > target.getTime();
  return value.getTime() === target.getTime();
}

function compareSemver(operator: string, actual: unknown, target: Version | null): boolean {
  const value = parseVersion(actual);
  if (!target || !value) return false;
  const order = compareVersions(value, target);
  switch (operator) {
    case 'semver_eq':
      return order === 0;
    case 'semver_neq':
      return order !== 0;
    case 'semver_gt':
      return order > 0;
    case 'semver_gte':
      return order >= 0;
    case 'semver_lt':
      return order < 0;
    default:
      return order <= 0;
  }
}

function versionInRange(actual: unknown, range: VersionRange | null): boolean {
  const value = parseVersion(actual);
  return value !== null && range !== null && inRange(value, range);
}
