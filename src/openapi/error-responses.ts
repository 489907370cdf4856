import type { ErrorType } from '../kernel/errors.ts';

const ERROR_TYPES: readonly ErrorType[] = ['validation_error', 'authentication_error', 'invalid_request', 'throttled_error', 'server_error'];

export const ERROR_SCHEMA_NAME = 'ApiError';

/** The one error body (kernel/errors.ts `ErrorBody`), as a component every error response refers to. */
export const API_ERROR_SCHEMA = {
  type: 'object',
  description: "The error body of every refusal, in Django REST framework's shape as PostHog answers it.",
  required: ['type', 'code', 'detail', 'attr'],
  properties: {
    type: { type: 'string', enum: [...ERROR_TYPES] },
    code: { type: 'string', description: 'e.g. invalid_input, required, not_found, permission_denied, throttled, database_unavailable' },
    detail: { type: 'string', description: 'a sentence for people' },
    attr: { type: 'string', nullable: true, description: 'the field at fault, nested fields joined by `__` (filters__groups__0__properties)' },
  },
} as const;

const WHY: Readonly<Record<number, string>> = {
  400: 'Invalid input: a field, query parameter or the JSON itself (`attr` names the field).',
  401: 'No credentials, or credentials that name no one (an unknown or revoked key, an ended session, an unknown project token).',
  403: "Authenticated, but not allowed: the key lacks the scope, the project is outside the key's reach, a session's write without `X-CSRFToken`, or a membership rule.",
  404: 'No such object in this project (other projects\' objects answer 404 too).',
  409: 'The change collides with another one: a concurrent change (`If-Match`), or a value that must be unique or is still referenced.',
  413: 'The request body is too large.',
  415: 'The body is not JSON (`Content-Type`), or its `Content-Encoding` is not supported.',
  429: 'Too many attempts; `Retry-After` says when to try again.',
  503: 'The database cannot serve the request now; `Retry-After` says when to try again.',
};

const RESPONSE_NAMES: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
};

/** The shared error responses, one per status, each with the shared body (`components.responses`). */
export const ERROR_RESPONSES: Readonly<Record<string, { description: string; content: object }>> = Object.fromEntries(
  Object.entries(RESPONSE_NAMES).map(([status, name]) => [
    name,
    { description: WHY[Number(status)], content: { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` } } } },
  ]),
);

/** A reference to the shared error response of `status`. */
export function errorResponse(status: number): { $ref: string } {
  const name = RESPONSE_NAMES[status];
  if (!name) throw new Error(`no shared error response for ${status}`);
  return { $ref: `#/components/responses/${name}` };
}

/** What the error statuses of an operation depend on, all read from the document itself. */
const BODY_METHODS: ReadonlySet<string> = new Set(['post', 'put', 'patch']);

/** Write methods that never write (flag DELETE always answers 405). */
const NEVER_WRITES: ReadonlySet<string> = new Set(['feature_flags_destroy', 'environments_feature_flags_destroy']);

export interface OperationTraits {
  operationId: string;
  method: string;
  /** Authenticated with a personal key or a session (not a public SDK, sign-in or feed route). */
  authenticated: boolean;
  /** Public, but needs a project token or secret (SDK, ingestion, the survey feed). */
  projectToken: boolean;
  hasPathParameters: boolean;
  hasQuery: boolean;
  hasBody: boolean;
}

/**
 * The error statuses every route of its kind can answer: the authentication hook (401, 403), the
 * project and path ids (404), validation (400), the body parser (413, 415), the database (503),
 * and, for writes, the collisions the database refuses (409). Statuses one route adds on top of
 * these are in EXTRA_ERRORS.
 */
export function errorStatusesOf(traits: OperationTraits): number[] {
  const statuses = new Set<number>([503]);
  if (traits.authenticated) {
    statuses.add(401).add(403);
    if (traits.method !== 'get' && !NEVER_WRITES.has(traits.operationId)) statuses.add(409);
  }
  if (traits.projectToken) statuses.add(401);
  if (traits.hasPathParameters) statuses.add(404);
  if (traits.hasQuery || traits.hasBody) statuses.add(400);
  // The JSON body parser runs on any POST, PUT or PATCH, even where the route ignores the body.
  if (traits.hasBody || BODY_METHODS.has(traits.method)) statuses.add(400).add(413).add(415);
  return [...statuses];
}

/** OFREP's own error body (sdk/ofrep.ts `OfrepFailure`), which its 400 and 404 answers carry instead. */
export const OFREP_ERROR_SCHEMA = {
  type: 'object',
  description: 'An OpenFeature Remote Evaluation Protocol error.',
  required: ['errorCode', 'errorDetails'],
  properties: {
    key: { type: 'string', description: 'the flag key, on a single-flag evaluation' },
    errorCode: { type: 'string', enum: ['PARSE_ERROR', 'INVALID_CONTEXT', 'TARGETING_KEY_MISSING', 'FLAG_NOT_FOUND', 'GENERAL'] },
    errorDetails: { type: 'string' },
  },
} as const;

export const OFREP_ERROR_RESPONSES = {
  OfrepBadRequest: {
    description: 'The body is not an object with a valid `context` (`targetingKey` is required).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/OfrepError' } } },
  },
  OfrepFlagNotFound: {
    description: 'No live flag with this key in the project (`FLAG_NOT_FOUND`).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/OfrepError' } } },
  },
} as const;

/** The OFREP operations answer 400 and 404 with their own body. */
export function ofrepErrorResponse(status: number): { $ref: string } | undefined {
  if (status === 400) return { $ref: '#/components/responses/OfrepBadRequest' };
  if (status === 404) return { $ref: '#/components/responses/OfrepFlagNotFound' };
  return undefined;
}

/** Statuses particular routes add, by operation id. */
export const EXTRA_ERRORS: Readonly<Record<string, readonly number[]>> = {
  login_create: [429],
  login_one_time_create: [429],
  users_me_partial_update: [429],
  // An invite that is unknown, used or expired is a 400, as PostHog answers it.
  signup_retrieve: [400],
  // Signing out needs no session; a session's sign-out without `X-CSRFToken` is a 403.
  logout_create: [403],
};
