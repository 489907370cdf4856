/**
 * The process's logger (pino, Fastify's logger): request lines carry the URL with every value that
 * can be a secret redacted, and the headers that carry credentials are never written.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

const REDACTED = '[redacted]';

/** Query parameters that carry keys or tokens (PostHog's and ours), compared lower-cased. */
const SECRET_PARAMS = new Set(['personal_api_key', 'api_key', 'apikey', 'token', 'key', 'secret', 'password', 'access_token', 'session', 'csrftoken', 'code', 'state']);

/** A name that says it holds a secret (`x_api_key`, `refresh_token`, `client_secret`). */
const SECRET_NAME = /(?:key|token|secret|password|session)$/i;

/**
 * Path segments that are credentials: an invite id is the sign-up link (`/api/signup/{id}/`, the
 * console's `/signup/{id}`, `…/invites/{id}/`), valid for 3 days; a sign-in link's token
 * (`/login/one-time/{token}`, should one ever be sent as a path).
 */
const SECRET_AFTER_SEGMENT = /\/(signup|invites|one-time)\/+([^/?#]+)/gi;

/** A value that looks like a PostHog key: personal (`phx_`), project token (`phc_`), secret (`phs_`). */
const KEY_LOOKING = /ph[xcs]_[A-Za-z0-9_-]+/g;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function redactParam(pair: string): string {
  const equals = pair.indexOf('=');
  const name = equals === -1 ? pair : pair.slice(0, equals);
  if (equals === -1) return pair.replace(KEY_LOOKING, REDACTED);
  const plainName = decoded(name).toLowerCase();
  if (SECRET_PARAMS.has(plainName) || SECRET_NAME.test(plainName)) return `${name}=${REDACTED}`;
  const value = pair.slice(equals + 1);
  return /ph[xcs]_/i.test(decoded(value)) ? `${name}=${REDACTED}` : pair;
}

/** The URL with secret-carrying query values, credential path segments and key-looking ones replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const bare = hash === -1 ? url : url.slice(0, hash);
  const mark = bare.indexOf('?');
  const rawPath = mark === -1 ? bare : bare.slice(0, mark);
  // Matched on the decoded path too: the router decodes `%73ignup` before it matches a route.
  const plainPath = decoded(rawPath);
  const shown = new RegExp(SECRET_AFTER_SEGMENT.source, 'i').test(plainPath) && plainPath !== rawPath ? plainPath : rawPath;
  const path = shown.replace(KEY_LOOKING, REDACTED).replace(SECRET_AFTER_SEGMENT, `/$1/${REDACTED}`);
  if (mark === -1) return path;
  return `${path}?${bare.slice(mark + 1).split('&').map(redactParam).join('&')}`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's request fields, with the URL redacted (headers are never logged). */
export function requestForLog(request: LoggedRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Where headers could still be logged (a `headers` object passed to a log call), they are censored. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'set-cookie', 'x-csrftoken', 'proxy-authorization'];
const REDACT_PATHS = CREDENTIAL_HEADERS.flatMap((name) => [
  `req.headers["${name}"]`,
  `headers["${name}"]`,
  `request.headers["${name}"]`,
]);

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      serializers: { req: requestForLog },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
    },
    destination,
  );
}
