import { COMPONENT_KEYWORD, REQUIRED_KEYWORD, SHAPE_KEYWORD } from '../kernel/http/shapes.ts';
import type { SchemaObject } from './schema-object.ts';

const isSchema = (value: unknown): value is SchemaObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Puts the shapes the areas declare (kernel/http/shapes.ts) into a schema of the document: a field
 * documented as a shape shows the shape, a body's documented `required` list becomes its
 * `required`, and every named shape becomes one component in `components`, referred to wherever it
 * appears (a nullable use refers to it through `allOf`, as OpenAPI 3.0 needs). Answers the new schema.
 */
export function placeShapes(schema: SchemaObject, components: Record<string, SchemaObject>): SchemaObject {
  const place = (node: SchemaObject): SchemaObject => {
    const shape = node[SHAPE_KEYWORD];
    if (isSchema(shape)) return place(shape);
    const copy: SchemaObject = {};
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === REQUIRED_KEYWORD) copy.required = value;
      else if (keyword !== COMPONENT_KEYWORD) copy[keyword] = placeIn(value);
    }
    const name = node[COMPONENT_KEYWORD];
    return typeof name === 'string' ? referTo(name, copy, components) : nullableReference(copy);
  };
  const placeIn = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(placeIn);
    return isSchema(value) ? place(value) : value;
  };
  return place(schema);
}

function referTo(name: string, schema: SchemaObject, components: Record<string, SchemaObject>): SchemaObject {
  const { nullable, ...component } = schema;
  components[name] ??= component;
  const ref = { $ref: `#/components/schemas/${name}` };
  return nullable === true ? { type: 'object', nullable: true, allOf: [ref] } : ref;
}

const isNullSchema = (schema: unknown): boolean =>
  isSchema(schema) && schema.nullable === true && Array.isArray(schema.enum) && schema.enum.length === 1 && schema.enum[0] === null;

/** `anyOf: [$ref, null]` (a nullable shape with its own description) written as the other nullable references are. */
function nullableReference(schema: SchemaObject): SchemaObject {
  const { anyOf, ...rest } = schema;
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || !isNullSchema(anyOf[1])) return schema;
  const ref = anyOf[0] as SchemaObject;
  if (typeof ref.$ref !== 'string' || Object.keys(ref).length !== 1) return schema;
  return { type: 'object', nullable: true, allOf: [ref], ...rest };
}
