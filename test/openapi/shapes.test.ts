import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { documentedAs, Nullable, OpenShape, requiring } from '../../src/kernel/http/shapes.ts';
import { placeShapes } from '../../src/openapi/shapes.ts';
import type { SchemaObject } from '../../src/openapi/schema-object.ts';
import { validatorCompiler } from '../../src/kernel/http/validator.ts';

const Inner = OpenShape('Inner', { n: Type.Integer() });
const Outer = OpenShape('Outer', { inner: Type.Optional(Nullable(Inner)), items: Type.Array(Inner) });

const plain = (schema: unknown): SchemaObject => JSON.parse(JSON.stringify(schema)) as SchemaObject;

test('a documented field validates as the field says: any value passes Ajv, so the hand validator answers', () => {
  const body = Type.Object({ shaped: Type.Optional(documentedAs(Outer)), name: Type.Optional(Type.String()) });
  const validate = validatorCompiler({ schema: body, httpPart: 'body', method: 'POST', url: '/' }) as (data: unknown) => boolean;
  for (const value of ['text', 5, null, [1], { inner: 'not an object', items: 'x' }]) assert.equal(validate({ shaped: value }), true, JSON.stringify(value));
  assert.equal(validate({ name: 5 }), false);
});

test('documentedAs and requiring keep TypeBox optionality: the field stays optional, the body requires nothing for Ajv', () => {
  const body = requiring(Type.Object({ key: Type.Optional(Type.String()), shaped: Type.Optional(documentedAs(Outer, Type.Object({}))) }), ['key']);
  assert.equal(plain(body).required, undefined);
  assert.deepEqual(plain(body)['x-required'], ['key']);
  const validate = validatorCompiler({ schema: body, httpPart: 'body', method: 'POST', url: '/' }) as (data: unknown) => boolean;
  assert.equal(validate({}), true);
});

test('the document shows the shape in place of the field, each named shape once as a component, nullable uses through allOf', () => {
  const components: Record<string, SchemaObject> = {};
  const body = plain(requiring(Type.Object({ shaped: Type.Optional(documentedAs(Outer)) }), ['shaped']));
  const placed = placeShapes(body, components);
  assert.deepEqual(placed.required, ['shaped']);
  assert.equal(placed['x-required'], undefined);
  assert.deepEqual((placed.properties as Record<string, unknown>).shaped, { $ref: '#/components/schemas/Outer' });
  assert.deepEqual(Object.keys(components).sort(), ['Inner', 'Outer']);
  const outer = components.Outer.properties as Record<string, SchemaObject>;
  assert.deepEqual(outer.items.items, { $ref: '#/components/schemas/Inner' });
  assert.equal(components.Outer.additionalProperties, true);
  assert.equal(components.Inner['x-component'], undefined);
  assert.ok(!JSON.stringify(components).includes('x-'), 'no marker keyword is left in the components');
});

test('a nullable shape with a description of its own refers to the component through allOf and keeps its description', () => {
  const components: Record<string, SchemaObject> = {};
  const field = {
    anyOf: [{ ...plain(Inner) }, { type: 'object', nullable: true, enum: [null] }],
    description: 'why it is here',
  };
  assert.deepEqual(placeShapes(field, components), {
    type: 'object',
    nullable: true,
    allOf: [{ $ref: '#/components/schemas/Inner' }],
    description: 'why it is here',
  });
});
