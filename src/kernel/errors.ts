export type ErrorType =
  | 'validation_error'
  | 'authentication_error'
  | 'invalid_request'
  | 'throttled_error'
  | 'server_error';

export interface ErrorBody {
  type: ErrorType;
  code: string;
  detail: string;
  attr: string | null;
}

/** Every error the API answers with; rendered in one place (http/error-handler.ts). */
export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly attr: string | null;

  constructor(status: number, type: ErrorType, code: string, detail: string, attr: string | null = null) {
    super(detail);
    this.status = status;
    this.type = type;
    this.code = code;
    this.attr = attr;
  }

  toBody(): ErrorBody {
    return { type: this.type, code: this.code, detail: this.message, attr: this.attr };
  }
}

export const validationError = (detail: string, attr: string | null = null, code = 'invalid_input') =>
  new ApiError(400, 'validation_error', code, detail, attr);

export const requiredField = (attr: string) => validationError('This field is required.', attr, 'required');

export const notFound = () => new ApiError(404, 'invalid_request', 'not_found', 'Not found.');

/** `value`, or a 404 where the record it was looked up as does not exist. */
export function orNotFound<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw notFound();
  return value;
}

export const notAuthenticated = () =>
  new ApiError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.');

export const authenticationFailed = (detail = 'Personal API key found in request Authorization header is invalid.') =>
  new ApiError(401, 'authentication_error', 'authentication_failed', detail);

/** A method the path does not offer; the caller sets `Allow`. */
export const methodNotAllowed = (method: string) =>
  new ApiError(405, 'invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`);

/** No project token on a request to a public endpoint (PostHog's words). */
export const projectTokenMissing = () =>
  new ApiError(401, 'authentication_error', 'not_authenticated', 'API key not provided. You can find your project API key in PostHog project settings.');

/** A project token that names no project (PostHog's words). */
export const projectTokenUnknown = () =>
  new ApiError(401, 'authentication_error', 'authentication_failed', 'Project API key invalid. You can find your project API key in PostHog project settings.');

export const permissionDenied = (detail = 'You do not have permission to perform this action.') =>
  new ApiError(403, 'authentication_error', 'permission_denied', detail);

/** A key limited to projects, on a route that is not about one project (PostHog's words). */
export const scopedProjectsOnly = () => permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');

/** A project outside the key's `scoped_teams` (PostHog's words). */
export const projectOutsideKey = (projectId: number) =>
  permissionDenied(`API key does not have access to the requested project: ID ${projectId}.`);

/** An organization outside the key's `scoped_organizations` (PostHog's words). */
export const organizationOutsideKey = (organizationId: string) =>
  permissionDenied(`API key does not have access to the requested organization: ID ${organizationId}.`);

export const sessionExpired = () =>
  new ApiError(401, 'authentication_error', 'authentication_failed', 'Your session has expired. Please sign in again.');

export const csrfFailed = (detail = 'CSRF token missing or incorrect.') =>
  new ApiError(403, 'authentication_error', 'csrf_failed', detail);

export const invalidCredentials = () =>
  new ApiError(400, 'validation_error', 'invalid_credentials', 'Invalid email or password.');

/** An answer worth retrying later: the error handler sends `Retry-After` from `retryAfterSeconds`. */
export class RetryLaterError extends ApiError {
  constructor(
    readonly retryAfterSeconds: number,
    status: number,
    type: ErrorType,
    code: string,
    detail: string,
  ) {
    super(status, type, code, detail);
  }
}

export class ThrottledError extends RetryLaterError {
  constructor(retryAfterSeconds: number, detail: string) {
    super(retryAfterSeconds, 429, 'throttled_error', 'throttled', detail);
  }
}

export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The database could not serve the request now (see db/unavailable.ts); SDKs retry a 503. */
export const databaseUnavailable = () =>
  new RetryLaterError(
    DATABASE_RETRY_AFTER_SECONDS,
    503,
    'server_error',
    'database_unavailable',
    'The database is unavailable or did not answer in time. Please try again shortly.',
  );

export const conflict = (detail: string) => new ApiError(409, 'server_error', 'conflict', detail);

export const parseError = (detail = 'JSON parse error - request body is not valid JSON.') =>
  new ApiError(400, 'invalid_request', 'parse_error', detail);

/**
 * An error whose body is not the contract's error body (PostHog's hand-built action answers,
 * e.g. `{"success": false, "error": "..."}`), or no body at all.
 */
export class RawErrorResponse extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(`HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const nestedTooDeep = (limit: number, advice = '') =>
  validationError(`The body nests objects and lists more than ${limit} levels deep${advice}.`, null, 'max_depth');
