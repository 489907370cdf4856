/**
 * Route schemas compile on first use (src/kernel/http/lazy-schemas.ts): every route's validators
 * and serializers of the whole app still compile (compileAll, so a broken schema fails here), and
 * a lazily compiled validator and serializer answer as compiled ones do.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { compileAll, lazyValidator, type Validate } from '../../src/kernel/http/lazy-schemas.ts';
import { validatorCompiler } from '../../src/kernel/http/validator.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => t.close());

test('every route schema of the app compiles', () => {
  const compiled = compileAll();
  assert.ok(compiled > 100, `only ${compiled} schemas waited`);
  assert.equal(compileAll(), 0);
});

test('a lazy validator compiles once, on its first call, and reports the errors of that call', () => {
  let compiles = 0;
  const validate = lazyValidator(() => {
    compiles += 1;
    const real: Validate = (data: unknown) => {
      real.errors = typeof data === 'number' ? null : [{ keyword: 'type', instancePath: '', schemaPath: '#/type', params: {}, message: 'not a number' }];
      return typeof data === 'number';
    };
    return real;
  });
  assert.equal(compiles, 0);
  assert.equal(validate('x'), false);
  assert.equal(validate.errors?.[0]?.message, 'not a number');
  assert.equal(validate(1), true);
  assert.equal(validate.errors, null);
  assert.equal(compiles, 1);
});

test('the service\'s validator compiler: DRF booleans and strict bodies, compiled when first used', () => {
  const schema = { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'], additionalProperties: false };
  const query = validatorCompiler({ schema, httpPart: 'querystring', method: 'GET', url: '/' }) as (data: unknown) => boolean;
  const body = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/' }) as ((data: unknown) => boolean) & { errors?: unknown };
  const parsed: Record<string, unknown> = { on: 'True' };
  assert.equal(query(parsed), true);
  assert.equal(parsed.on, true);
  assert.equal(body({ on: 'maybe' }), false);
  assert.ok(Array.isArray(body.errors));
  assert.equal(body({ on: true }), true);
});

test('a route answers through its lazily compiled serializer and validator as before', async () => {
  const created = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: { key: 'lazy-one', name: 'x' } });
  assert.equal(created.statusCode, 201, created.body);
  const refused = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload: { key: 12 } });
  assert.equal(refused.statusCode, 400);
  assert.equal(refused.json().type, 'validation_error');
});
