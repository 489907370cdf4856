import {
  API_ERROR_SCHEMA,
  ERROR_RESPONSES,
  ERROR_SCHEMA_NAME,
  EXTRA_ERRORS,
  OFREP_ERROR_RESPONSES,
  OFREP_ERROR_SCHEMA,
  errorResponse,
  errorStatusesOf,
  ofrepErrorResponse,
} from './error-responses.ts';
import { operationIdFor } from './operation-ids.ts';
import type { SchemaObject } from './schema-object.ts';
import { placeShapes } from './shapes.ts';
import { shareSchemas } from './shared-schemas.ts';

interface Parameter {
  in: string;
  name: string;
}

interface Response {
  description?: string;
  $ref?: string;
  content?: Record<string, { schema?: SchemaObject }>;
}

export interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: SchemaObject }> };
  responses: Record<string, Response>;
}

export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, SchemaObject>; responses?: Record<string, object>; securitySchemes?: Record<string, unknown> };
}

/** Public operations that take no project token: signing in, signing out and signing up. */
const NO_CREDENTIALS = new Set(['login_create', 'login_one_time_create', 'login_methods_retrieve', 'logout_create', 'signup_retrieve', 'signup_create', 'reset_create', 'reset_complete_create']);

/** Operations that answer 304 to an `If-None-Match` naming the current ETag (kernel/http/etag.ts). */
const REVALIDATED = new Set([
  'flags_definitions_retrieve',
  'feature_flag_local_evaluation_legacy_retrieve',
  'feature_flags_local_evaluation_retrieve',
  'ofrep_v1_evaluate_flags_create',
  'surveys_public_feed_retrieve',
  'array_config_retrieve',
  'array_config_js_retrieve',
]);

/** The flag definitions routes: a personal API key or the project's secret token (`phs_…`), as Bearer. */
const DEFINITIONS = new Set(['flags_definitions_retrieve', 'feature_flag_local_evaluation_legacy_retrieve', 'feature_flags_local_evaluation_retrieve']);

export const PROJECT_SECRET_SCHEME = 'ProjectSecretAPIKeyAuth';
export const PROJECT_TOKEN_SCHEME = 'ProjectTokenAuth';

const NOT_MODIFIED: Response = { description: 'Not modified: `If-None-Match` names the current `ETag`; no body.' };

const SUCCESS_DESCRIPTIONS: Readonly<Record<string, string>> = { '200': 'OK', '201': 'Created', '204': 'No content' };

const jsonSchema = (holder: { content?: Record<string, { schema?: SchemaObject }> } | undefined): SchemaObject | undefined =>
  holder?.content?.['application/json']?.schema;

function isPaginated(operation: Operation): boolean {
  const schema = jsonSchema(operation.responses['200']);
  if (schema?.type === 'array') return true;
  const properties = schema?.properties as Record<string, unknown> | undefined;
  return properties !== undefined && 'results' in properties && 'count' in properties;
}

/**
 * What a client generator needs beyond what @fastify/swagger makes from the route schemas:
 * operation ids, the error responses with the shared error body, and the shapes the route schemas
 * declare for documentation (the flag and survey fields their validators check by hand, the
 * `required` lists of create and full-update bodies) as named components. Runs once on the
 * finished document (it is cached); the route schemas, which also validate, are left as they are.
 */
export function completeDocument(generated: OpenApiDocument): OpenApiDocument {
  // A copy: the generated document may share objects with the route schemas that validate.
  const document = JSON.parse(JSON.stringify(generated)) as OpenApiDocument;
  document.servers = [{ url: '/', description: 'this server' }];
  const schemas: Record<string, SchemaObject> = {
    ...document.components.schemas,
    [ERROR_SCHEMA_NAME]: { ...API_ERROR_SCHEMA },
    OfrepError: { ...OFREP_ERROR_SCHEMA },
  };
  document.components.schemas = schemas;
  document.components.responses = { ...document.components.responses, ...ERROR_RESPONSES, ...OFREP_ERROR_RESPONSES };
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) completeOperation(method, path, operation);
  }
  replaceJsonSchemas(document, (schema) => placeShapes(schema, schemas));
  replaceJsonSchemas(document, shareSchemas(answersOf(document), schemas));
  return document;
}

/** Replaces the JSON schema of every request body and response. */
function replaceJsonSchemas(document: OpenApiDocument, replace: (schema: SchemaObject) => SchemaObject): void {
  for (const operation of operationsOf(document)) {
    for (const holder of [operation.requestBody, ...Object.values(operation.responses)]) {
      const media = holder?.content?.['application/json'];
      if (media?.schema) media.schema = replace(media.schema);
    }
  }
}

const operationsOf = (document: OpenApiDocument): Operation[] => Object.values(document.paths).flatMap((operations) => Object.values(operations));

function answersOf(document: OpenApiDocument): Map<string, Map<string, SchemaObject>> {
  const answers = new Map<string, Map<string, SchemaObject>>();
  for (const operation of operationsOf(document)) {
    const byStatus = new Map<string, SchemaObject>();
    for (const [status, response] of Object.entries(operation.responses)) {
      const schema = jsonSchema(response);
      if (schema) byStatus.set(status, schema);
    }
    answers.set(operation.operationId ?? '', byStatus);
  }
  return answers;
}

/**
 * The credentials the route schemas leave out: the secret token beside the personal key on the
 * definitions routes, and the project token on the SDK routes (unless the path carries it).
 */
function documentCredentials(operationId: string, operation: Operation, projectToken: boolean, parameters: Parameter[]): void {
  if (DEFINITIONS.has(operationId)) {
    operation.security = [...(operation.security ?? []), { [PROJECT_SECRET_SCHEME]: [] }];
    return;
  }
  const tokenInPath = parameters.some((parameter) => parameter.in === 'path' && parameter.name === 'token');
  if (projectToken && !tokenInPath) operation.security = [{ [PROJECT_TOKEN_SCHEME]: [] }];
}

function completeOperation(method: string, path: string, operation: Operation): void {
  const operationId = operation.operationId ?? operationIdFor(method, path, method === 'get' && isPaginated(operation));
  operation.operationId = operationId;
  for (const [status, response] of Object.entries(operation.responses)) {
    if (response.description === 'Default Response') response.description = SUCCESS_DESCRIPTIONS[status] ?? response.description;
  }
  const authenticated = (operation.security ?? []).some((requirement) => 'PersonalAPIKeyAuth' in requirement);
  const parameters = operation.parameters ?? [];
  const projectToken = !authenticated && !NO_CREDENTIALS.has(operationId);
  documentCredentials(operationId, operation, projectToken, parameters);
  const statuses = errorStatusesOf({
    operationId,
    method,
    authenticated,
    projectToken,
    hasPathParameters: parameters.some((parameter) => parameter.in === 'path'),
    hasQuery: parameters.some((parameter) => parameter.in === 'query'),
    hasBody: operation.requestBody !== undefined,
  });
  if (REVALIDATED.has(operationId)) operation.responses['304'] ??= NOT_MODIFIED;
  const ofrep = operationId.startsWith('ofrep_');
  for (const status of [...statuses, ...(EXTRA_ERRORS[operationId] ?? [])].sort((a, b) => a - b)) {
    operation.responses[String(status)] ??= (ofrep ? ofrepErrorResponse(status) : undefined) ?? errorResponse(status);
  }
  operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => Number(a) - Number(b)));
}
