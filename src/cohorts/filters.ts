/**
 * A cohort's criteria: `{"properties": {"type": "AND" | "OR", "values": [group | property]}}`,
 * nested to any depth (PostHog's cohort filters). Properties:
 *
 * - `person`: `{type: "person", key, operator, value, negation?}`; the operators of flag conditions
 *   (without `in`, `not_in`, `flag_evaluates_to`; `min`/`max` read as `gte`/`lte`).
 * - `cohort`: `{type: "cohort", key: "id", value: <cohort id>, negation?}`: membership of another
 *   cohort of the project (checked by the service: it must exist and close no loop).
 * - `behavioral` (and `event`): filters on events. Stored as sent; such a cohort cannot be counted
 *   here and cannot be used in a feature flag.
 *
 * The parser returns a normalised copy (operator aliases rewritten, cohort ids as numbers); the
 * walkers below read stored filters of any shape without failing.
 */
import { parseRelativeOrAbsoluteDate } from '../targeting/dates.ts';
import { regexValueError } from '../targeting/regex.ts';
import { DATE_OPERATORS, FLAG_OPERATORS, OPERATOR_ALIASES, REGEX_OPERATORS } from '../targeting/operators.ts';
import type { CohortFilters, CohortProperty, CohortPropertyGroup } from './filter-shapes.ts';
import { filtersError } from '../targeting/errors.ts';
import { missingKeys } from './errors.ts';

export type { CohortFilters, CohortProperty, CohortPropertyGroup } from './filter-shapes.ts';

export const MAX_LIST_VALUES = 1000;
const MAX_DEPTH = 20;
const MAX_PROPERTIES = 1000;

/** Person operators: the flag list without the cohort-only and flag-only ones. */
const PERSON_OPERATORS: ReadonlySet<string> = new Set(
  FLAG_OPERATORS.filter((operator) => operator !== 'in' && operator !== 'not_in' && operator !== 'flag_evaluates_to'),
);
const VALUELESS_OPERATORS: ReadonlySet<string> = new Set(['is_set', 'is_not_set']);
const BEHAVIORAL_TYPES: ReadonlySet<unknown> = new Set(['behavioral', 'event']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const show = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value) ?? 'null');

/** A group is anything with a `values` list, as the evaluation engine reads it. */
function isGroupShaped(value: unknown): value is { type?: unknown; values: unknown[] } {
  return isObject(value) && Array.isArray(value.values);
}

/** Validates filters as sent and returns the copy to store. */
export function parseCohortFilters(raw: unknown): CohortFilters {
  if (!isObject(raw) || !('properties' in raw)) throw filtersError("Must contain a 'properties' key with type and values");
  const state = { properties: 0 };
  return { properties: parseGroup(raw.properties, 1, state) };
}

function parseGroup(raw: unknown, depth: number, state: { properties: number }): CohortPropertyGroup {
  if (depth > MAX_DEPTH) throw filtersError(`Cohort filters may nest groups at most ${MAX_DEPTH} deep.`);
  if (!isObject(raw)) throw filtersError('A cohort filter group must be an object with a type and values.');
  if (raw.type !== 'AND' && raw.type !== 'OR') {
    throw filtersError(`A cohort filter group's type must be "AND" or "OR", not ${show(raw.type ?? null)}.`);
  }
  if (!Array.isArray(raw.values)) throw filtersError("A cohort filter group's values must be a list.");
  const values = raw.values.map((value) =>
    isGroupShaped(value) ? parseGroup(value, depth + 1, state) : parseProperty(value, state),
  );
  return { type: raw.type, values };
}

function parseProperty(raw: unknown, state: { properties: number }): CohortProperty {
  if (!isObject(raw)) throw filtersError('A cohort filter must be an object.');
  state.properties += 1;
  if (state.properties > MAX_PROPERTIES) throw filtersError(`A cohort may have at most ${MAX_PROPERTIES} filters.`);
  if (raw.negation !== undefined && raw.negation !== null && typeof raw.negation !== 'boolean') {
    throw filtersError('negation must be true or false.');
  }
  switch (raw.type) {
    case 'person':
      return parsePersonProperty(raw);
    case 'cohort':
      return parseCohortProperty(raw);
    case 'behavioral':
    case 'event':
      return parseBehavioralProperty(raw);
    default:
      throw filtersError(
        `Cohort filters can use person, cohort and behavioral properties, not ${show(raw.type ?? null)}.`,
        'invalid_property_type',
      );
  }
}

function parsePersonProperty(raw: Record<string, unknown>): CohortProperty {
  const key = raw.key;
  if (typeof key !== 'string' || key === '') throw missingKeys('person', ['key']);
  const rawOperator = raw.operator;
  const operator = typeof rawOperator === 'string' ? (OPERATOR_ALIASES[rawOperator] ?? rawOperator) : rawOperator;
  const value = raw.value;
  const missing: string[] = [];
  if ((value === undefined || value === null) && !(typeof operator === 'string' && VALUELESS_OPERATORS.has(operator))) {
    missing.push('value');
  }
  if (operator === undefined || operator === null) missing.push('operator');
  if (missing.length > 0) throw missingKeys('person', missing);
  if (typeof operator !== 'string' || !PERSON_OPERATORS.has(operator)) {
    throw filtersError(`Invalid operator: ${show(operator)}`, 'invalid_operator');
  }
  if (Array.isArray(value) && value.length > MAX_LIST_VALUES) {
    throw filtersError(`Property group expressions of type ${key} cannot contain more than ${MAX_LIST_VALUES} values.`);
  }
  if (DATE_OPERATORS.has(operator) && (typeof value !== 'string' || parseRelativeOrAbsoluteDate(value, new Date()) === null)) {
    throw filtersError(
      `Invalid date value '${show(value)}' for operator '${operator}'. Expected a relative date (e.g., '-7d', '30d') or an ISO 8601 date (e.g., '2024-01-15').`,
      'invalid_date',
    );
  }
  const regexError = REGEX_OPERATORS.has(operator) ? regexValueError(operator, String(value)) : null;
  if (regexError !== null) throw filtersError(regexError, 'invalid_value');
  return { ...raw, type: 'person', key, operator, value };
}

function parseCohortProperty(raw: Record<string, unknown>): CohortProperty {
  if (raw.key !== 'id') throw filtersError('A cohort filter must have key "id".');
  if (raw.value === undefined || raw.value === null) throw missingKeys('cohort', ['value']);
  const id = cohortIdOf(raw.value);
  if (id === null) throw filtersError(`Cohort with id ${show(raw.value)} does not exist`, 'cohort_does_not_exist');
  return { ...raw, type: 'cohort', key: 'id', value: id };
}

function parseBehavioralProperty(raw: Record<string, unknown>): CohortProperty {
  const type = raw.type as 'behavioral' | 'event';
  const key = raw.key;
  if (!((typeof key === 'string' && key !== '') || (typeof key === 'number' && Number.isFinite(key)))) {
    throw missingKeys(type, ['key']);
  }
  if (type === 'behavioral') {
    const missing = ['value', 'event_type'].filter((field) => typeof raw[field] !== 'string' || raw[field] === '');
    if (missing.length > 0) throw missingKeys('behavioral', missing);
  }
  return { ...raw, type, key };
}


/** A cohort id as a JSON integer or a string of digits; null for anything else. */
export function cohortIdOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value.trim())) {
    const id = Number(value.trim());
    return id > 0 ? id : null;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Walkers over stored filters (any shape).

function* propertiesOf(filters: unknown): Generator<Record<string, unknown>> {
  const root = isObject(filters) ? filters.properties : undefined;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isObject(node)) continue;
    if (isGroupShaped(node)) {
      for (let i = node.values.length - 1; i >= 0; i--) stack.push(node.values[i]);
      continue;
    }
    yield node;
  }
}

/** The cohort ids these filters reference, in order, without repeats. */
export function referencedCohortIds(filters: unknown): number[] {
  const ids = new Set<number>();
  for (const property of propertiesOf(filters)) {
    if (property.type !== 'cohort') continue;
    const id = cohortIdOf(property.value);
    if (id !== null) ids.add(id);
  }
  return [...ids];
}

/** Filters on events (`behavioral` or `event` properties) anywhere in these filters. */
export function hasBehavioralFilters(filters: unknown): boolean {
  for (const property of propertiesOf(filters)) if (BEHAVIORAL_TYPES.has(property.type)) return true;
  return false;
}

/** The filters hold at least one property (PostHog's "has criteria"). */
export function hasCriteria(filters: unknown): boolean {
  return !propertiesOf(filters).next().done;
}
