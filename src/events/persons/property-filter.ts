import { isPlainObject } from './properties.ts';
import { propertiesError } from './errors.ts';

/**
 * The `properties` parameter of the persons list and the events list, PostHog's forms:
 * - a JSON list of `{key, value, operator?, type?}` (all must match);
 * - a property group `{type: "AND" | "OR", values: [...]}`, nested;
 * - the legacy object `{"email": "a@b.c", "age__gt": 30}` (`key__operator`).
 * `type` says whose properties (`person`, `event`); each list allows its own. Anything else, or
 * more than MAX_CONDITIONS conditions, is a 400 on `properties`.
 */

export const PERSON_FILTER_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'is_set',
  'is_not_set',
  'gt',
  'gte',
  'lt',
  'lte',
] as const;
export type PersonFilterOperator = (typeof PERSON_FILTER_OPERATORS)[number];

export type Scalar = string | number | boolean;

/** Whose properties a condition reads. */
export type PropertyOwner = 'person' | 'event';

type ConditionOf<T> = T & { kind: 'condition'; key: string; owner: PropertyOwner };

export type PropertyCondition =
  | ConditionOf<{ operator: 'exact' | 'is_not'; values: string[] }>
  | ConditionOf<{ operator: 'icontains' | 'not_icontains'; value: string }>
  | ConditionOf<{ operator: 'is_set' | 'is_not_set' }>
  | ConditionOf<{ operator: 'gt' | 'gte' | 'lt' | 'lte'; value: string; numeric: boolean }>;

export interface PropertyGroup {
  kind: 'group';
  join: 'AND' | 'OR';
  items: (PropertyGroup | PropertyCondition)[];
}

const OPERATORS = new Set<string>(PERSON_FILTER_OPERATORS);
const MAX_DEPTH = 8;
export const MAX_CONDITIONS = 50;
const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function textOf(value: Scalar): string {
  return typeof value === 'string' ? value : String(value);
}

/** What a list accepts: the owners a condition may name, the one it means when none is named. */
export interface FilterDialect {
  owners: readonly PropertyOwner[];
  defaultOwner: PropertyOwner;
  /** The 400's detail for a `type` outside `owners`. */
  unsupportedType(type: string): string;
}

export const PERSON_FILTERS: FilterDialect = {
  owners: ['person'],
  defaultOwner: 'person',
  unsupportedType: (type) => `Only person properties can filter persons, not "${type}".`,
};

class Parser {
  conditions = 0;
  constructor(readonly dialect: FilterDialect) {}

  ownerOf(type: unknown): PropertyOwner {
    if (type === undefined || type === null) return this.dialect.defaultOwner;
    const owner = this.dialect.owners.find((o) => o === type);
    if (!owner) throw propertiesError(this.dialect.unsupportedType(String(type)));
    return owner;
  }

  condition(key: unknown, rawOperator: unknown, value: unknown, type: unknown): PropertyCondition {
    this.conditions += 1;
    if (this.conditions > MAX_CONDITIONS) throw propertiesError(`At most ${MAX_CONDITIONS} property filters.`);
    return condition(key, rawOperator, value, this.ownerOf(type));
  }
}

function condition(key: unknown, rawOperator: unknown, value: unknown, owner: PropertyOwner): PropertyCondition {
  if (typeof key !== 'string' || key.length === 0) throw propertiesError('Every property filter needs a "key".');
  const operator = rawOperator === undefined || rawOperator === null ? 'exact' : rawOperator;
  if (typeof operator !== 'string' || !OPERATORS.has(operator)) {
    throw propertiesError(`Unsupported operator "${String(operator)}"; use one of ${PERSON_FILTER_OPERATORS.join(', ')}.`);
  }
  switch (operator as PersonFilterOperator) {
    case 'exact':
    case 'is_not': {
      const list = Array.isArray(value) ? value : [value];
      if (list.length === 0 || !list.every(isScalar)) throw propertiesError(`The value of "${key}" must be a string, number, boolean or a list of them.`);
      return { kind: 'condition', key, owner, operator: operator as 'exact' | 'is_not', values: list.map(textOf) };
    }
    case 'icontains':
    case 'not_icontains':
      if (!isScalar(value)) throw propertiesError(`The value of "${key}" must be a string, number or boolean.`);
      return { kind: 'condition', key, owner, operator: operator as 'icontains' | 'not_icontains', value: textOf(value) };
    case 'is_set':
    case 'is_not_set':
      return { kind: 'condition', key, owner, operator: operator as 'is_set' | 'is_not_set' };
    default: {
      if (!isScalar(value) || typeof value === 'boolean') throw propertiesError(`The value of "${key}" must be a number or a string.`);
      const text = textOf(value);
      return { kind: 'condition', key, owner, operator: operator as 'gt' | 'gte' | 'lt' | 'lte', value: text, numeric: NUMERIC.test(text) };
    }
  }
}

function parseNode(parser: Parser, node: unknown, depth: number): PropertyGroup | PropertyCondition {
  if (depth > MAX_DEPTH) throw propertiesError('Property groups are nested too deeply.');
  if (Array.isArray(node)) return { kind: 'group', join: 'AND', items: node.map((item) => parseNode(parser, item, depth + 1)) };
  if (!isPlainObject(node)) throw propertiesError('Each property filter must be an object.');
  if ((node.type === 'AND' || node.type === 'OR') && Array.isArray(node.values)) {
    return { kind: 'group', join: node.type, items: node.values.map((item) => parseNode(parser, item, depth + 1)) };
  }
  return parser.condition(node.key, node.operator, node.value, node.type);
}

/** `{"email": "a@b.c", "age__gt": 30}`: each key is `name` or `name__operator`. */
function parseLegacy(parser: Parser, object: Record<string, unknown>): PropertyGroup {
  const items = Object.entries(object).map(([raw, value]) => {
    const split = raw.lastIndexOf('__');
    const suffix = split > 0 ? raw.slice(split + 2) : '';
    return OPERATORS.has(suffix) ? parser.condition(raw.slice(0, split), suffix, value, undefined) : parser.condition(raw, 'exact', value, undefined);
  });
  return { kind: 'group', join: 'AND', items };
}

export function parsePropertyFilter(raw: string, dialect: FilterDialect): PropertyGroup {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw propertiesError('Properties must be valid JSON.');
  }
  const parser = new Parser(dialect);
  if (Array.isArray(parsed)) return parseNode(parser, parsed, 0) as PropertyGroup;
  if (isPlainObject(parsed)) {
    if ((parsed.type === 'AND' || parsed.type === 'OR') && Array.isArray(parsed.values)) return parseNode(parser, parsed, 0) as PropertyGroup;
    return parseLegacy(parser, parsed);
  }
  throw propertiesError('Properties must be a JSON list of property filters.');
}

export const parsePersonPropertyFilter = (raw: string): PropertyGroup => parsePropertyFilter(raw, PERSON_FILTERS);
