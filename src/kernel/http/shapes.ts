/**
 * Shapes a hand validator checks (flag filters, survey questions…), and answers sent as stored JSON
 * (activity entries): described once in TypeBox beside their validator or producer, they give it its
 * TypeScript types (`Static`) and the OpenAPI document its components, while the route's own schema
 * keeps accepting (and passing through) any value, so that the validator, not Ajv, answers with
 * PostHog's messages. Ajv (`strict: false`) and the serializer ignore the `x-` keywords below;
 * openapi/shapes.ts reads them.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox';

/** On a shape: the name of the component the document makes of it, referred to wherever it appears. */
export const COMPONENT_KEYWORD = 'x-component';
/** On a route field: the shape the field is documented as (the field itself validates and serializes as before). */
export const SHAPE_KEYWORD = 'x-shape';
/** On a body: the fields it requires, for the document; the hand validator checks them in PostHog's order and words. */
export const REQUIRED_KEYWORD = 'x-required';

export const Nullable = <T extends TSchema>(schema: T, options: TSchemaOptions = {}) => Type.Union([schema, Type.Null()], options);

/** An object type that also takes keys it does not name (they are kept as sent). */
export type Open<T> = T & { [extra: string]: unknown };

/**
 * A named object shape that keeps unknown keys: documented with `additionalProperties: true` as
 * component `name`, typed with an index signature.
 */
export function OpenShape<P extends TProperties>(name: string, properties: P, options: TSchemaOptions = {}): TUnsafe<Open<Static<TObject<P>>>> {
  return Type.Unsafe<Open<Static<TObject<P>>>>(Type.Object(properties, { ...options, additionalProperties: true, [COMPONENT_KEYWORD]: name }));
}

/** `schema` as component `name` of the document. */
export function named<S extends TSchema>(name: string, schema: S): S {
  return withKeyword(schema, COMPONENT_KEYWORD, name);
}

/**
 * `field` (any value by default) documented as `shape`: the route validates and serializes the field
 * as `field` says, and the document shows `shape` in its place.
 */
export function documentedAs<F extends TSchema>(shape: TSchema, field: F): F;
export function documentedAs(shape: TSchema): ReturnType<typeof Type.Unknown>;
export function documentedAs(shape: TSchema, field: TSchema = Type.Unknown()): TSchema {
  return withKeyword(field, SHAPE_KEYWORD, shape);
}

/** `body` documented with `required` (a create or full-update body whose validator checks them). */
export function requiring<B extends TSchema>(body: B, required: readonly string[]): B {
  return withKeyword(body, REQUIRED_KEYWORD, [...required]);
}

/** A copy of `schema` with one more keyword; TypeBox's own hidden markers (optional, kind) are kept. */
function withKeyword<S extends TSchema>(schema: S, keyword: string, value: unknown): S {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as S;
  return Object.assign(copy, { [keyword]: value });
}
