import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { OVERRIDES } from '../../src/openapi/operation-ids.ts';
import type { OpenApiDocument } from '../../src/openapi/document.ts';
import { FLAG_OPERATORS } from '../../src/targeting/operators.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { operationsOf } from './served-document.ts';

type Operation = { security?: Record<string, string[]>[]; 'x-required-scope'?: string; requestBody?: unknown; responses?: Record<string, unknown> };
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

let t: TestApp;
let doc: Document;
before(async () => {
  t = await startTestApp();
  const response = await t.request({ method: 'GET', url: '/api/schema/', key: null });
  assert.equal(response.statusCode, 200);
  doc = response.json();
});
after(async () => {
  await t.close();
});

const flagPath = '/api/projects/{project_id}/feature_flags/';

test('the document is public OpenAPI 3 and documents the flag routes with their scopes', () => {
  assert.match(doc.openapi, /^3\./);
  const expectations: [string, string, string][] = [
    [flagPath, 'get', 'feature_flag:read'],
    [flagPath, 'post', 'feature_flag:write'],
    [`${flagPath}{id}`, 'get', 'feature_flag:read'],
    [`${flagPath}{id}`, 'patch', 'feature_flag:write'],
    [`${flagPath}{id}`, 'delete', 'feature_flag:write'],
    [`${flagPath}{id}/activity`, 'get', 'activity_log:read'],
    [`${flagPath}activity`, 'get', 'activity_log:read'],
  ];
  for (const [path, method, scope] of expectations) {
    const operation = doc.paths[path]?.[method] ?? doc.paths[path.replace(/\/$/, '')]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
    assert.equal(operation['x-required-scope'], scope, `${method} ${path}`);
    assert.deepEqual(operation.security, [{ PersonalAPIKeyAuth: [scope] }, { SessionCookieAuth: [] }]);
  }
});

test('the create operation documents the writable fields from the validating schema', () => {
  const create = doc.paths[flagPath]?.post ?? doc.paths[flagPath.replace(/\/$/, '')]?.post;
  const text = JSON.stringify(create?.requestBody);
  for (const field of ['key', 'filters', 'evaluation_tags', '_should_create_usage_dashboard', 'bucketing_identifier']) {
    assert.ok(text.includes(`"${field}"`), field);
  }
});

test('every authenticated operation states a security requirement; health and schema routes are hidden', () => {
  for (const [path, operations] of Object.entries(doc.paths)) {
    assert.ok(!path.startsWith('/_health') && !path.startsWith('/api/schema'), path);
    for (const [method, operation] of Object.entries(operations)) {
      const security = operation.security;
      assert.ok(Array.isArray(security) && security.length >= 1, `${method} ${path}`);
      // The session is only ever the alternative to a key, never the one way in.
      if (security.some((s) => 'SessionCookieAuth' in s)) assert.ok('PersonalAPIKeyAuth' in security[0], `${method} ${path}`);
    }
  }
});

test('Swagger UI is served', async () => {
  const response = await t.request({ method: 'GET', url: '/api/schema/swagger-ui/', key: null });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /text\/html/);
});

const full = () => doc as unknown as OpenApiDocument;
const byId = (operationId: string) => {
  const found = operationsOf(full()).find(({ operation }) => operation.operationId === operationId);
  assert.ok(found, operationId);
  return found.operation;
};
const bodyOf = (operationId: string) => byId(operationId).requestBody?.content?.['application/json']?.schema as Record<string, unknown>;

test('every operation has a unique operation id in PostHog style', () => {
  const ids = operationsOf(full()).map(({ operation }) => operation.operationId ?? '');
  assert.ok(ids.length > 100);
  for (const id of ids) assert.match(id, /^[a-z][a-z0-9_]*_(list|create|retrieve|update|partial_update|destroy)$/);
  assert.deepEqual(ids.filter((id, i) => ids.indexOf(id) !== i), []);
  for (const id of ['feature_flags_list', 'feature_flags_create', 'feature_flags_retrieve', 'feature_flags_partial_update', 'feature_flags_update', 'feature_flags_destroy', 'surveys_destroy']) byId(id);
  const keys = new Set(operationsOf(full()).map(({ method, path }) => `${method.toUpperCase()} ${path}`));
  for (const key of Object.keys(OVERRIDES)) assert.ok(keys.has(key), `the override ${key} names a documented operation`);
});

test('every operation documents its error responses with the one error body', async () => {
  const document = full();
  const responses = document.components.responses as Record<string, { content: Record<string, { schema: { $ref: string } }> }>;
  for (const { operation } of operationsOf(document)) {
    const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400);
    assert.ok(errors.length >= 1, operation.operationId);
    for (const [status, response] of errors) {
      if ((operation.operationId?.endsWith('feature_flags_destroy') || operation.operationId?.endsWith('experiments_destroy')) && status === '405') continue;
      const name = response.$ref?.replace('#/components/responses/', '') ?? '';
      // OFREP answers its refusals of a body or a flag key in its own shape.
      const body = operation.operationId?.startsWith('ofrep_') && ['400', '404'].includes(status) ? 'OfrepError' : 'ApiError';
      assert.equal(responses[name]?.content['application/json'].schema.$ref, `#/components/schemas/${body}`, `${operation.operationId} ${status}`);
    }
  }
  // The documented body is the one the API sends.
  const answer = await t.request({ method: 'GET', url: '/api/projects/1/feature_flags/2147483647/' });
  assert.equal(answer.statusCode, 404);
  const schema = document.components.schemas?.ApiError as { required: string[] };
  assert.deepEqual(Object.keys(answer.json()).sort(), [...schema.required].sort());
});

test('each operation documents its real success status', () => {
  const statuses = (id: string) => Object.keys(byId(id).responses).filter((status) => Number(status) < 400 || status === '405');
  assert.deepEqual(statuses('feature_flags_destroy'), ['405'], 'flags are never deleted');
  assert.equal(byId('feature_flags_destroy').responses['405'].content, undefined, 'the 405 has no body');
  assert.deepEqual(statuses('surveys_destroy'), ['204']);
  for (const id of ['feature_flags_create', 'surveys_create', 'cohorts_create', 'projects_create', 'personal_api_keys_create']) assert.deepEqual(statuses(id), ['201'], id);
  for (const id of ['feature_flags_partial_update', 'feature_flags_update', 'surveys_launch_create']) assert.deepEqual(statuses(id), ['200'], id);
});

test('create and full-update bodies list their required fields; partial updates require none', () => {
  assert.deepEqual(bodyOf('feature_flags_create').required, ['key']);
  assert.deepEqual(bodyOf('feature_flags_update').required, ['key']);
  assert.equal(bodyOf('feature_flags_partial_update').required, undefined);
  assert.deepEqual(bodyOf('surveys_create').required, ['name', 'type']);
  assert.deepEqual(bodyOf('surveys_update').required, ['name', 'type']);
  assert.equal(bodyOf('surveys_partial_update').required, undefined);
});

test('filters, questions, appearance and conditions are typed, with the operators the validation knows', () => {
  const flagBody = bodyOf('feature_flags_create').properties as Record<string, unknown>;
  assert.deepEqual(flagBody.filters, { $ref: '#/components/schemas/FlagFilters' });
  const schemas = full().components.schemas as Record<string, { properties: Record<string, { enum?: unknown[]; items?: unknown }> }>;
  assert.deepEqual(schemas.FlagFilters.properties.groups.items, { $ref: '#/components/schemas/FlagConditionGroup' });
  for (const operator of FLAG_OPERATORS) assert.ok(schemas.FlagProperty.properties.operator.enum?.includes(operator), operator);
  const surveyBody = bodyOf('surveys_create').properties as Record<string, { items?: unknown; allOf?: unknown }>;
  assert.deepEqual(surveyBody.questions.items, { $ref: '#/components/schemas/SurveyQuestion' });
  assert.deepEqual(surveyBody.appearance.allOf, [{ $ref: '#/components/schemas/SurveyAppearance' }]);
  assert.deepEqual(surveyBody.conditions.allOf, [{ $ref: '#/components/schemas/SurveyConditions' }]);
  const answer = byId('feature_flags_retrieve').responses['200'].content?.['application/json']?.schema;
  assert.deepEqual(answer, { $ref: '#/components/schemas/FeatureFlag' });
});

test('the definitions routes also take the secret project token; the SDK routes name the project token', () => {
  const document = full();
  const schemes = document.components.securitySchemes as Record<string, { type: string; in?: string; name?: string; scheme?: string }>;
  assert.equal(schemes.ProjectSecretAPIKeyAuth?.scheme, 'bearer');
  assert.deepEqual([schemes.ProjectTokenAuth?.type, schemes.ProjectTokenAuth?.in, schemes.ProjectTokenAuth?.name], ['apiKey', 'query', 'token']);
  for (const id of ['flags_definitions_retrieve', 'feature_flag_local_evaluation_legacy_retrieve', 'feature_flags_local_evaluation_retrieve']) {
    assert.deepEqual(byId(id).security, [{ PersonalAPIKeyAuth: ['feature_flag:read'] }, { ProjectSecretAPIKeyAuth: [] }], id);
  }
  const withProjectToken = operationsOf(document)
    .filter(({ operation }) => operation.security?.some((requirement) => 'ProjectTokenAuth' in requirement))
    .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
  for (const route of ['POST /flags', 'POST /decide', 'POST /batch', 'POST /e', 'GET /api/surveys']) {
    assert.ok(withProjectToken.some((key) => key === route || key === `${route}/`), route);
  }
  assert.ok(!withProjectToken.some((key) => key.includes('{token}')), 'the remote config carries the token in its path');
  assert.ok(!withProjectToken.some((key) => key.includes('login') || key.includes('signup')));
});

test("a personal API key's scoped_teams and scoped_organizations are documented as lists, never null", () => {
  type KeySchema = { required: string[]; properties: Record<string, { type?: string; nullable?: boolean; anyOf?: unknown; oneOf?: unknown }> };
  const keyIn = (id: string, status: string): KeySchema => {
    const schema = byId(id).responses[status].content?.['application/json']?.schema as KeySchema & { properties: { results?: { items: KeySchema } } };
    return schema.properties.results?.items ?? schema;
  };
  const answers: [string, string][] = [
    ['personal_api_keys_list', '200'],
    ['personal_api_keys_create', '201'],
    ['personal_api_keys_retrieve', '200'],
    ['personal_api_keys_current_retrieve', '200'],
  ];
  for (const [id, status] of answers) {
    const key = keyIn(id, status);
    for (const field of ['scoped_teams', 'scoped_organizations']) {
      const property = key.properties[field];
      assert.ok(key.required.includes(field), `${id} ${field} required`);
      assert.equal(property.type, 'array', `${id} ${field}`);
      assert.ok(!property.nullable && !property.anyOf && !property.oneOf, `${id} ${field} is not nullable`);
    }
  }
});
