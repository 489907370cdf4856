/** The property operators a flag condition may use (the list PostHog's newest validation accepts). */
export const FLAG_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'icontains_multi',
  'not_icontains_multi',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
  'semver_eq',
  'semver_neq',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
  'is_set',
  'is_not_set',
  'is_date_exact',
  'is_date_after',
  'is_date_before',
  'in',
  'not_in',
  'flag_evaluates_to',
] as const;

export type FlagOperator = (typeof FLAG_OPERATORS)[number];

/** Legacy spellings, rewritten to their canonical operator in the stored filters. */
export const OPERATOR_ALIASES: Readonly<Record<string, FlagOperator>> = { min: 'gte', max: 'lte' };

const KNOWN = new Set<string>(FLAG_OPERATORS);

export const isFlagOperator = (value: string): value is FlagOperator => KNOWN.has(value);

/** Operators whose condition value must be a JSON string. */
export const STRING_VALUE_OPERATORS: ReadonlySet<string> = new Set([
  'regex',
  'not_regex',
  'icontains',
  'not_icontains',
  'gt',
  'gte',
  'lt',
  'lte',
]);

export const REGEX_OPERATORS: ReadonlySet<string> = new Set(['regex', 'not_regex']);

export const DATE_OPERATORS: ReadonlySet<string> = new Set(['is_date_before', 'is_date_after', 'is_date_exact']);

export const COHORT_ONLY_OPERATORS: ReadonlySet<string> = new Set(['in', 'not_in']);
