/** An error answer of the API, in its one body shape `{type, code, detail, attr}`. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  readonly attr: string | null;
  /** Seconds from a 429's Retry-After header, when it sent one. */
  readonly retryAfter: number | null;

  constructor(status: number, body: { type?: string; code?: string; detail?: string; attr?: string | null }, retryAfter: number | null = null) {
    super(body.detail || `The server answered ${status}.`);
    this.name = 'ApiRequestError';
    this.status = status;
    this.type = body.type ?? 'server_error';
    this.code = body.code ?? 'error';
    this.attr = body.attr ?? null;
    this.retryAfter = retryAfter;
  }
}

export const isApiError = (error: unknown): error is ApiRequestError => error instanceof ApiRequestError;

/** What to show a person for any failure: the server's detail, or what went wrong on the way. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiRequestError) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

/**
 * The error's detail when its `attr` names `field` (exactly, or a field nested inside it when
 * `nested` is true); null otherwise. `attr` joins nested paths with `__`.
 */
export function fieldError(error: unknown, field: string, nested = false): string | null {
  if (!(error instanceof ApiRequestError) || error.attr === null) return null;
  if (error.attr === field) return error.message;
  return nested && error.attr.startsWith(`${field}__`) ? error.message : null;
}
