import type { FlagProperty } from '../../targeting/types.ts';
import { checkCohortCondition } from './cohorts.ts';
import { parseRelativeOrAbsoluteDate } from '../../targeting/dates.ts';
import { filtersError } from '../../targeting/errors.ts';
import type { FlagLookup } from './lookup.ts';
import { COHORT_ONLY_OPERATORS, DATE_OPERATORS, REGEX_OPERATORS, STRING_VALUE_OPERATORS } from '../../targeting/operators.ts';
import { regexValueError } from '../../targeting/regex.ts';
import { displayValue } from './values.ts';

export const MAX_LIST_VALUES = 1000;

/** The per-condition rules, in PostHog's order; the first failure is thrown. */
export async function checkProperty(property: FlagProperty, lookup: FlagLookup): Promise<void> {
  const { value, type } = property;
  const operator = property.operator ?? 'exact';
  if (Array.isArray(value) && value.length > MAX_LIST_VALUES) {
    throw filtersError(
      `Property group expressions of type ${displayValue(property.key)} cannot contain more than ${MAX_LIST_VALUES} values.`,
    );
  }
  if (type === 'cohort') await checkCohortCondition(value, lookup);
  if (DATE_OPERATORS.has(operator)) {
    if (typeof value !== 'string' || parseRelativeOrAbsoluteDate(value, new Date()) === null) {
      throw filtersError(`Invalid date value: ${displayValue(value)}`, 'invalid_date');
    }
  }
  if (STRING_VALUE_OPERATORS.has(operator) && typeof value !== 'string') {
    throw filtersError(`Invalid value for operator ${operator}: ${displayValue(value)}`, 'invalid_value');
  }
  const regexError = REGEX_OPERATORS.has(operator) ? regexValueError(operator, String(value)) : null;
  if (regexError !== null) throw filtersError(regexError, 'invalid_value');
  if (COHORT_ONLY_OPERATORS.has(operator) && type !== 'cohort') {
    throw filtersError(
      `The '${operator}' operator is only valid for cohort properties, not '${displayValue(type)}' properties.`,
      'invalid_operator',
    );
  }
}

