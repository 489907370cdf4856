/**
 * The console's only way to the API: same-origin fetch with the session cookie, the CSRF header on
 * every write, JSON in and out, and every error answer turned into an ApiRequestError.
 */
import { ApiRequestError } from './errors.ts';

export const CSRF_COOKIE = 'bellwether_csrftoken';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** No request may hang a page: the browser gives up on the API after this long. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

type UnauthenticatedListener = () => void;
const unauthenticatedListeners = new Set<UnauthenticatedListener>();

/** Called whenever an API answer says the caller is not signed in (401), e.g. an expired session. */
export function onUnauthenticated(listener: UnauthenticatedListener): () => void {
  unauthenticatedListeners.add(listener);
  return () => unauthenticatedListeners.delete(listener);
}

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

function retryAfterSeconds(response: Response): number | null {
  const raw = response.headers.get('retry-after');
  if (raw === null) return null;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : null;
}

async function errorFrom(response: Response): Promise<ApiRequestError> {
  let body: { type?: string; code?: string; detail?: string; attr?: string | null } = {};
  try {
    const parsed: unknown = await response.json();
    if (parsed && typeof parsed === 'object') body = parsed as typeof body;
  } catch {
    // A body that is not JSON (a proxy's page, an empty 405): the status speaks for itself.
  }
  if (!body.detail && response.status === 404) body.detail = 'Not found.';
  return new ApiRequestError(response.status, body, retryAfterSeconds(response));
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (WRITE_METHODS.has(method)) {
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) headers['x-csrftoken'] = csrf;
  }
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const response = await fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
    signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
  });
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401) for (const listener of unauthenticatedListeners) listener();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => apiRequest<T>(path, { signal }),
  post: <T>(path: string, body: unknown = {}, headers?: Record<string, string>) => apiRequest<T>(path, { method: 'POST', body, headers }),
  patch: <T>(path: string, body: unknown, headers?: Record<string, string>) => apiRequest<T>(path, { method: 'PATCH', body, headers }),
  delete: <T = void>(path: string) => apiRequest<T>(path, { method: 'DELETE' }),
};

/** `path` with the query parameters that have a value (empty strings and nulls are left out). */
export function withQuery(path: string, query: Record<string, string | number | boolean | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}
