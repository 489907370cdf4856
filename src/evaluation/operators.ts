/**
 * One property condition against one property bag (reference §6.3, CONTRACT §9 "Evaluation").
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
import { caretRange, compareVersions, inRange, parseVersion, tildeRange, wildcardRange, type VersionRange } from './semver.ts';
import { matchRegex } from '../targeting/regex.ts';
import { asciiLower, isBooleanLike, isTruthyValue, jsonText, looseNumber, looseText } from './values.ts';

const MATCH_WHEN_MISSING: ReadonlySet<string> = new Set(['is_not', 'not_icontains', 'not_icontains_multi', 'not_regex']);
const NULL_AS_TEXT: ReadonlySet<string> = new Set(['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex']);

export function hasProperty(bag: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(bag, key) && bag[key] !== undefined;
}

/** Does the property condition hold for these properties? (`cohort` and `flag` conditions are handled elsewhere.) */
export function matchProperty(property: FlagProperty, bag: Record<string, unknown>, now: Date): boolean {
  const key = looseText(property.key);
  const operator = property.operator || 'exact';
  const present = hasProperty(bag, key);
  if (operator === 'is_set') return present;
  if (operator === 'is_not_set') return !present;
  if (!present) return MATCH_WHEN_MISSING.has(operator);
  const actual = bag[key];
  if (actual === null && !NULL_AS_TEXT.has(operator)) return false;
  const expected = property.value;
  if (expected === undefined) return false;

  switch (operator) {
    case 'exact':
      return exactMatch(expected, actual);
    case 'is_not':
      return !exactMatch(expected, actual);
    case 'icontains':
      return containsText(actual, expected);
    case 'not_icontains':
      return !containsText(actual, expected);
    case 'icontains_multi':
      return containsAny(actual, expected);
    case 'not_icontains_multi':
      return !containsAny(actual, expected);
    case 'regex':
    case 'not_regex': {
      const found = matchRegex(looseText(expected), looseText(actual));
      if (found === null) return false; // a refused pattern or a text too long to search fails both ways
      return operator === 'regex' ? found : !found;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compareOrdered(operator, actual, expected);
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact':
      return compareDates(operator, actual, expected, now);
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte':
      return compareSemver(operator, actual, expected);
    case 'semver_tilde':
      return versionInRange(actual, tildeRange(expected));
    case 'semver_caret':
      return versionInRange(actual, caretRange(expected));
    case 'semver_wildcard':
      return versionInRange(actual, wildcardRange(expected));
    default:
      return false; // unknown operators (and `in`/`not_in` outside a cohort property) match nothing
  }
}

/**
 * `exact`: a boolean-like condition value (`true`, `"False"`, a list of those) compares truth
 * values (`"true"`, `"TRUE"`, `true` are the same; anything that is not true-like counts as false);
 * a list means "any of"; otherwise the texts compare case-insensitively.
 */
export function exactMatch(expected: unknown, actual: unknown): boolean {
  if (isBooleanLike(expected)) return isTruthyValue(expected) === isTruthyValue(actual);
  const text = jsonText(actual).toLowerCase();
  if (Array.isArray(expected)) return expected.some((item) => jsonText(item).toLowerCase() === text);
  return jsonText(expected).toLowerCase() === text;
}

function containsText(actual: unknown, expected: unknown): boolean {
  return asciiLower(looseText(actual)).includes(asciiLower(looseText(expected)));
}

function containsAny(actual: unknown, expected: unknown): boolean {
  const needles = Array.isArray(expected) ? expected : [expected];
  return needles.some((needle) => containsText(actual, needle));
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

function compareDates(operator: string, actual: unknown, expected: unknown, now: Date): boolean {
  const target = conditionDate(expected, now);
  const value = dateOf(actual);
  if (!target || !value) return false;
  if (operator === 'is_date_before') return value.getTime() < target.getTime();
  if (operator === 'is_date_after') return value.getTime() > target.getTime();
  return value.getTime() === target.getTime();
}

function compareSemver(operator: string, actual: unknown, expected: unknown): boolean {
  const target = parseVersion(expected);
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
