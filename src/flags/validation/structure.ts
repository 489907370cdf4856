import type { FlagFilters, FlagGroup, FlagProperty } from '../../targeting/types.ts';
import { filtersError } from '../../targeting/errors.ts';
import { isFlagOperator, OPERATOR_ALIASES } from '../../targeting/operators.ts';
import { displayValue, isFiniteNumber, isPlainObject, pythonTypeName, type JsonObject } from './values.ts';

/**
 * The structural layer (as PostHog's newest serializer has it): shapes and types of `filters`, checked before the
 * semantic rules. Returns a copy with operator aliases rewritten; unknown keys are kept as sent.
 * `multivariate` and `payloads` are left for their own modules.
 */
export function parseFiltersStructure(raw: unknown): FlagFilters {
  if (!isPlainObject(raw)) {
    throw filtersError(`Expected a dictionary of items but got type "${pythonTypeName(raw)}".`, 'not_a_dict');
  }
  const filters: FlagFilters = { ...raw };
  if ('aggregation_group_type_index' in raw) {
    filters.aggregation_group_type_index = parseGroupTypeIndex(
      raw.aggregation_group_type_index,
      'Filters are not valid (aggregation_group_type_index must be null or an integer from 0 to 4).',
    );
  }
  if ('groups' in raw) {
    filters.groups = parseList(raw.groups, 'groups').map((group, i) => parseConditionGroup(group, i + 1));
  }
  for (const [field, label] of [
    ['super_groups', 'super condition set'],
    ['holdout_groups', 'holdout group'],
  ] as const) {
    const value = raw[field];
    if (value === undefined || value === null) continue;
    filters[field] = parseList(value, field).map((group, i) => parseExtraGroup(group, label, i + 1));
  }
  return filters;
}

function parseList(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw filtersError(`Filters are not valid (${field} must be a list of condition sets).`);
  return value;
}

function parseGroupTypeIndex(value: unknown, message: string): number | null {
  if (value === null) return null;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 4) return value;
  throw filtersError(message);
}

function checkRollout(group: JsonObject, label: string, n: number): void {
  const rollout = group.rollout_percentage;
  if (rollout === undefined || rollout === null) return;
  if (isFiniteNumber(rollout) && rollout >= 0 && rollout <= 100) return;
  throw filtersError(`Invalid rollout percentage in ${label} ${n}: must be a number between 0 and 100.`);
}

function groupObject(raw: unknown, label: string, n: number): JsonObject {
  if (!isPlainObject(raw)) throw filtersError(`Filters are not valid (${label} ${n} must be an object).`);
  checkRollout(raw, label, n);
  return raw;
}

/** `super_groups` / `holdout_groups`: objects with a valid rollout; kept as sent. */
function parseExtraGroup(raw: unknown, label: string, n: number): FlagGroup {
  return { ...groupObject(raw, label, n) };
}

function parseConditionGroup(raw: unknown, n: number): FlagGroup {
  const source = groupObject(raw, 'condition set', n);
  const group: FlagGroup = { ...source };
  if ('aggregation_group_type_index' in source) {
    group.aggregation_group_type_index = parseGroupTypeIndex(
      source.aggregation_group_type_index,
      `Filters are not valid (aggregation_group_type_index in condition set ${n} must be null or an integer from 0 to 4).`,
    );
  }
  if (source.description !== undefined && source.description !== null && typeof source.description !== 'string') {
    throw filtersError(`Filters are not valid (description of condition set ${n} must be a string or null).`);
  }
  const variant = source.variant;
  if (variant !== undefined && variant !== null && typeof variant !== 'string') {
    throw filtersError(`Filters are not valid (variant override in condition set ${n} must be a string or null).`);
  }
  if ('properties' in source) {
    if (!Array.isArray(source.properties)) {
      throw filtersError(`Filters are not valid (properties in condition set ${n} must be a list).`);
    }
    group.properties = source.properties.map((property, i) => parseProperty(property, n, i + 1));
  }
  return group;
}

function parseProperty(raw: unknown, n: number, m: number): FlagProperty {
  if (!isPlainObject(raw)) {
    throw filtersError(`Filters are not valid (property ${m} in condition set ${n} must be an object).`);
  }
  const key = raw.key;
  if (!((typeof key === 'string' && key !== '') || isFiniteNumber(key))) {
    throw filtersError(`Filters are not valid (property ${m} in condition set ${n} needs a key, a string or a number).`);
  }
  const property: FlagProperty = { ...raw, key };
  if ('group_type_index' in raw) {
    property.group_type_index = parseGroupTypeIndex(
      raw.group_type_index,
      `Filters are not valid (group_type_index of property ${m} in condition set ${n} must be null or an integer from 0 to 4).`,
    );
  }
  if (raw.negation !== undefined && raw.negation !== null && typeof raw.negation !== 'boolean') {
    throw filtersError(`Filters are not valid (negation of property ${m} in condition set ${n} must be true or false).`);
  }
  const operator = raw.operator;
  if (operator === undefined || operator === null) return property;
  if (typeof operator === 'string') {
    const canonical = OPERATOR_ALIASES[operator] ?? operator;
    if (isFlagOperator(canonical)) {
      property.operator = canonical;
      return property;
    }
  }
  throw filtersError(`Invalid operator: ${displayValue(operator)}`, 'invalid_operator');
}
