/**
 * Which operators each kind of property filter offers in the editor, what their values look like,
 * and how a property changes when its type or operator does. Pure; the operator list is the
 * engine's own (src/targeting/operators.ts), so the editor offers exactly what evaluation supports.
 */
import { COHORT_ONLY_OPERATORS, FLAG_OPERATORS, type FlagOperator } from '../../../src/targeting/operators.ts';
import { newUid, type PropertyForm } from './filters-form.ts';

export type PropertyType = 'person' | 'cohort' | 'flag' | 'group';

export const OPERATOR_LABELS: Record<FlagOperator, string> = {
  exact: 'equals',
  is_not: "doesn't equal",
  icontains: 'contains',
  not_icontains: "doesn't contain",
  icontains_multi: 'contains any of',
  not_icontains_multi: 'contains none of',
  regex: 'matches regex',
  not_regex: "doesn't match regex",
  gt: 'greater than',
  gte: 'greater than or equal to',
  lt: 'less than',
  lte: 'less than or equal to',
  semver_gt: 'semver >',
  semver_gte: 'semver ≥',
  semver_lt: 'semver <',
  semver_lte: 'semver ≤',
  semver_eq: 'semver =',
  semver_neq: 'semver ≠',
  semver_tilde: 'semver ~ (same minor)',
  semver_caret: 'semver ^ (same major)',
  semver_wildcard: 'semver wildcard (1.2.*)',
  is_set: 'is set',
  is_not_set: 'is not set',
  is_date_exact: 'is on date',
  is_date_after: 'is after date',
  is_date_before: 'is before date',
  in: 'is in cohort',
  not_in: 'is not in cohort',
  flag_evaluates_to: 'evaluates to',
};

/** Operators for person and group properties: all but the cohort and flag ones. */
const VALUE_OPERATORS = FLAG_OPERATORS.filter((operator) => !COHORT_ONLY_OPERATORS.has(operator) && operator !== 'flag_evaluates_to');

export function operatorsFor(type: string | undefined): readonly FlagOperator[] {
  switch (type) {
    case 'cohort':
      return ['in', 'not_in'];
    case 'flag':
      return ['flag_evaluates_to'];
    default:
      return VALUE_OPERATORS;
  }
}

/** How the value of a condition is entered. */
export type ValueKind = 'none' | 'list' | 'text' | 'number' | 'date' | 'cohort' | 'flag';

const LIST_OPERATORS = new Set(['exact', 'is_not', 'icontains_multi', 'not_icontains_multi']);
const NUMBER_OPERATORS = new Set(['gt', 'gte', 'lt', 'lte']);
const DATE_OPERATORS = new Set(['is_date_exact', 'is_date_after', 'is_date_before']);

export function valueKind(type: string | undefined, operator: string | null | undefined): ValueKind {
  if (type === 'cohort') return 'cohort';
  if (type === 'flag') return 'flag';
  const op = operator ?? 'exact';
  if (op === 'is_set' || op === 'is_not_set') return 'none';
  if (LIST_OPERATORS.has(op)) return 'list';
  if (NUMBER_OPERATORS.has(op)) return 'number';
  if (DATE_OPERATORS.has(op)) return 'date';
  return 'text';
}

/** The values of a list condition as strings (a single stored value is a list of one). */
export function listValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  if (value === undefined || value === null || value === '') return [];
  return [typeof value === 'string' ? value : String(value)];
}

function textValue(value: unknown): string {
  if (Array.isArray(value)) return value.length > 0 ? String(value[0]) : '';
  if (value === undefined || value === null) return '';
  return String(value);
}

/** The property with another operator, its value reshaped to what that operator takes. */
export function withOperator(property: PropertyForm, operator: string): PropertyForm {
  const kind = valueKind(property.type, operator);
  let value: unknown;
  switch (kind) {
    case 'none':
      value = operator;
      break;
    case 'list':
      value = valueKind(property.type, property.operator) === 'none' ? [] : listValues(property.value);
      break;
    case 'cohort':
    case 'flag':
      value = property.value;
      break;
    default:
      value = valueKind(property.type, property.operator) === 'none' ? '' : textValue(property.value);
  }
  return { ...property, operator, value };
}

export function newProperty(type: PropertyType, groupTypeIndex: number | null = null): PropertyForm {
  switch (type) {
    case 'cohort':
      return { uid: newUid('p'), type, key: 'id', operator: 'in', value: '', extra: {} };
    case 'flag':
      return { uid: newUid('p'), type, key: '', operator: 'flag_evaluates_to', value: true, extra: {} };
    case 'group':
      return { uid: newUid('p'), type, key: '', operator: 'exact', value: [], group_type_index: groupTypeIndex, extra: {} };
    default:
      return { uid: newUid('p'), type: 'person', key: '', operator: 'exact', value: [], extra: {} };
  }
}

/** The property as another type: a fresh filter of that type, keeping only its place in the list. */
export function withType(property: PropertyForm, type: PropertyType, groupTypeIndex: number | null = null): PropertyForm {
  return { ...newProperty(type, groupTypeIndex), uid: property.uid };
}

/** What a flag-dependency condition's value select shows: `true`, `false` or a variant key. */
export function flagValueOption(value: unknown): string {
  if (value === true || value === 'true') return 'true';
  if (value === false || value === 'false') return 'false';
  return typeof value === 'string' ? value : 'true';
}

export function flagValueFromOption(option: string): boolean | string {
  if (option === 'true') return true;
  if (option === 'false') return false;
  return option;
}
