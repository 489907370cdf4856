import type { Ajv, AnySchemaObject, SchemaValidateFunction } from 'ajv';

type DataValidationCxt = NonNullable<Parameters<SchemaValidateFunction>[3]>;

// The inputs Django REST framework's BooleanField takes for true and false (case as DRF has them:
// lower, Title and UPPER case, not mixed).
const TRUE_VALUES = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
const FALSE_VALUES = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false]);

/** A boolean as DRF reads one ("true", "False", "yes", "on", "1", 1, true …); undefined for anything else. */
export function parseDrfBoolean(value: unknown): boolean | undefined {
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  return undefined;
}

/**
 * A yes/no query parameter: any spelling DRF takes, in any case and trimmed (PostHog reads several
 * of its filters as `value.lower() == "true"`, so "tRUE" must keep working); undefined otherwise.
 */
export function parseQueryBoolean(raw: unknown): boolean | undefined {
  return typeof raw === 'string' ? parseDrfBoolean(raw.trim().toLowerCase()) : parseDrfBoolean(raw);
}

/** A yes/no query filter that is off unless it says yes. */
export const isQueryTrue = (raw: unknown): boolean => parseQueryBoolean(raw) === true;

const KEYWORD = 'drfBoolean';

/** Checks a boolean field and turns DRF's string and number spellings into the boolean in place. */
const validateDrfBoolean: SchemaValidateFunction = (_schema: boolean, data: unknown, _parent?: AnySchemaObject, ctx?: DataValidationCxt) => {
  const parsed = parseDrfBoolean(data);
  if (parsed === undefined) {
    validateDrfBoolean.errors = [{ keyword: 'type', params: { type: 'boolean' }, message: 'must be boolean' }];
    return false;
  }
  if (parsed !== data && ctx?.parentData !== undefined) {
    (ctx.parentData as Record<string | number, unknown>)[ctx.parentDataProperty] = parsed;
  }
  return true;
};

export function addDrfBooleanKeyword(ajv: Ajv): void {
  ajv.addKeyword({ keyword: KEYWORD, schemaType: 'boolean', modifying: true, errors: true, validate: validateDrfBoolean });
}

type SchemaNode = Record<string, unknown>;

/**
 * A copy of a request schema in which every `type: "boolean"` is checked by the DRF boolean keyword
 * instead (Ajv checks `type` before any other keyword, so it has to go). The route's own schema,
 * which the OpenAPI document and the serializer read, is left as it is.
 */
export function withDrfBooleans<T>(schema: T): T {
  return rewrite(schema) as T;
}

// Keywords whose value is data, not a schema.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'required']);
// Keywords whose value maps names to schemas.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewrite);
  if (value === null || typeof value !== 'object') return value;
  const node: SchemaNode = {};
  for (const [key, child] of Object.entries(value as SchemaNode)) {
    if (DATA_KEYWORDS.has(key)) node[key] = child;
    else if (SCHEMA_MAPS.has(key) && child !== null && typeof child === 'object') {
      node[key] = Object.fromEntries(Object.entries(child as SchemaNode).map(([name, schema]) => [name, rewrite(schema)]));
    } else node[key] = rewrite(child);
  }
  const type = node.type;
  if (type === 'boolean') {
    delete node.type;
    node[KEYWORD] = true;
  } else if (Array.isArray(type) && type.includes('boolean')) {
    const others = type.filter((t) => t !== 'boolean');
    delete node.type;
    return { anyOf: [{ [KEYWORD]: true }, { ...node, type: others }] };
  }
  return node;
}
