import type { FastifyRequest } from 'fastify';
import { csrfFailed } from '../../kernel/errors.ts';
import { hashesEqual, hashSecret } from './keys.ts';
import type { SessionPrincipal } from './principal.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const MAX_TOKEN_LENGTH = 200;

/**
 * A write made with the session cookie must carry the session's CSRF token in `X-CSRFToken`: a
 * page on another site can make the browser send the cookie, but cannot read the token.
 */
export function checkCsrf(request: FastifyRequest, principal: SessionPrincipal): void {
  if (SAFE_METHODS.has(request.method)) return;
  const header = request.headers['x-csrftoken'];
  if (typeof header !== 'string' || header === '' || header.length > MAX_TOKEN_LENGTH) throw csrfFailed();
  if (!hashesEqual(hashSecret(header), principal.csrfHash)) throw csrfFailed();
}

/**
 * Sign-in has no session yet, hence no token: a browser's `Origin`, when sent, must be this site's
 * (the request's own origin, or SITE_URL's), so that another site cannot sign a visitor in.
 */
export function checkSameOrigin(request: FastifyRequest, siteUrl: string | null): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (origin === `${request.protocol}://${request.host}`) return;
  if (siteUrl !== null && origin === new URL(siteUrl).origin) return;
  throw csrfFailed('Origin checking failed: the request did not come from this site.');
}
