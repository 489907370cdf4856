import type { SchemaObject } from './schema-object.ts';

const ref = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });
const nullableRef = (name: string, description?: string): SchemaObject => ({
  type: 'object',
  nullable: true,
  allOf: [ref(name)],
  ...(description ? { description } : {}),
});

/**
 * The structured fields the route schemas leave untyped (their validators give PostHog's own
 * messages), typed for the document by the same name wherever the flag and survey operations
 * carry them, in bodies and answers.
 */
const TYPED_FIELDS: Readonly<Record<string, SchemaObject>> = {
  filters: ref('FlagFilters'),
  targeting_flag_filters: nullableRef('FlagFilters', 'filters for the targeting flag the survey owns (created, updated or, with null, removed)'),
  questions: { type: 'array', nullable: true, items: ref('SurveyQuestion') },
  appearance: nullableRef('SurveyAppearance'),
  conditions: nullableRef('SurveyConditions'),
};

/** Which operations carry the typed fields, and which fields their bodies require (the validators' `required` checks). */
export const TYPED_OPERATIONS: Readonly<Record<string, { required?: string[] }>> = {
  feature_flags_list: {},
  feature_flags_create: { required: ['key'] },
  feature_flags_retrieve: {},
  feature_flags_update: { required: ['key'] },
  feature_flags_partial_update: {},
  feature_flags_enable_create: {},
  feature_flags_disable_create: {},
  feature_flags_archive_create: {},
  feature_flags_unarchive_create: {},
  surveys_list: {},
  surveys_create: { required: ['name', 'type'] },
  surveys_retrieve: {},
  surveys_update: { required: ['name', 'type'] },
  surveys_partial_update: {},
  surveys_launch_create: {},
  surveys_stop_create: {},
};

/** Types the untyped structured fields of an object schema, nested ones included (list pages, embedded flags). */
export function typeFields(schema: SchemaObject): void {
  const properties = schema.properties as Record<string, SchemaObject> | undefined;
  if (properties) {
    for (const [name, property] of Object.entries(properties)) {
      const typed = TYPED_FIELDS[name];
      if (typed && (property.type === undefined || isFreeObject(property))) {
        properties[name] = typed;
      } else {
        typeFields(property);
      }
    }
  }
  const items = schema.items as SchemaObject | undefined;
  if (items) typeFields(items);
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = schema[keyword] as SchemaObject[] | undefined;
    if (Array.isArray(branches)) branches.forEach(typeFields);
  }
}

const isFreeObject = (schema: SchemaObject) =>
  schema.type === 'object' && (schema.properties === undefined || Object.keys(schema.properties as object).length === 0);
