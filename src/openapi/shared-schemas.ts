import type { SchemaObject } from './schema-object.ts';

interface Source {
  operationId: string;
  status: string;
  /** Property names from the response schema down to the shape (none: the whole answer). */
  path?: string[];
}

/**
 * Shapes several operations answer, named as PostHog's serializers are: each is taken from the
 * answer of one operation and every identical schema in the document (nullable ones included)
 * becomes a reference to it, so a client generator makes one type of each.
 */
const NAMED: Readonly<Record<string, Source>> = {
  FeatureFlag: { operationId: 'feature_flags_retrieve', status: '200' },
  UserBasic: { operationId: 'feature_flags_retrieve', status: '200', path: ['created_by'] },
  Survey: { operationId: 'surveys_retrieve', status: '200' },
  SurveyWritten: { operationId: 'surveys_create', status: '201' },
  MinimalFeatureFlag: { operationId: 'surveys_retrieve', status: '200', path: ['linked_flag'] },
  Cohort: { operationId: 'cohorts_retrieve', status: '200' },
  EventDefinition: { operationId: 'event_definitions_retrieve', status: '200' },
  PropertyDefinition: { operationId: 'property_definitions_retrieve', status: '200' },
  SchemaPropertyGroup: { operationId: 'schema_property_groups_retrieve', status: '200' },
  EventSchema: { operationId: 'event_schemas_retrieve', status: '200' },
};

type OperationSchemas = Map<string, Map<string, SchemaObject>>;

function withoutNullable(schema: SchemaObject): SchemaObject {
  const { nullable: _nullable, ...rest } = schema;
  return rest;
}

function pick({ operationId, status, path = [] }: Source, answers: OperationSchemas): SchemaObject | undefined {
  let schema = answers.get(operationId)?.get(status);
  for (const name of path) schema = (schema?.properties as Record<string, SchemaObject> | undefined)?.[name];
  return schema && schema.type === 'object' ? withoutNullable(schema) : undefined;
}

/**
 * Adds the named shapes to `schemas` and answers a function that replaces, in a schema, every
 * copy of one of them by a reference.
 */
export function shareSchemas(answers: OperationSchemas, schemas: Record<string, SchemaObject>): (schema: SchemaObject) => SchemaObject {
  const byText = new Map<string, string>();
  for (const [name, source] of Object.entries(NAMED)) {
    const schema = pick(source, answers);
    if (!schema) continue;
    schemas[name] = JSON.parse(JSON.stringify(schema)) as SchemaObject;
    byText.set(JSON.stringify(schema), name);
  }
  const replace = (node: SchemaObject, root: boolean): SchemaObject => {
    if (!root && node.type === 'object') {
      const name = byText.get(JSON.stringify(withoutNullable(node)));
      if (name) {
        const ref = { $ref: `#/components/schemas/${name}` };
        return node.nullable ? { type: 'object', nullable: true, allOf: [ref] } : ref;
      }
    }
    const copy: SchemaObject = {};
    for (const [key, value] of Object.entries(node)) copy[key] = replaceIn(value);
    return copy;
  };
  const replaceIn = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(replaceIn);
    if (value !== null && typeof value === 'object') return replace(value as SchemaObject, false);
    return value;
  };
  for (const name of byText.values()) schemas[name] = replace(schemas[name], true);
  return (schema) => replace(schema, false);
}
