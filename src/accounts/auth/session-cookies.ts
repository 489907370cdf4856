import type { FastifyReply, FastifyRequest } from 'fastify';

/** The session's id: HttpOnly, never readable by scripts. */
export const SESSION_COOKIE = 'bellwether_session';
/** The CSRF token, readable by the console's scripts, which send it back as `X-CSRFToken`. */
export const CSRF_COOKIE = 'bellwether_csrftoken';

/**
 * One cookie of the request. The Cookie header is parsed on the first read only: most requests
 * (SDKs, personal API keys) need no cookie, so no hook parses it for every request.
 */
export function requestCookie(request: FastifyRequest, name: string): string | undefined {
  request.cookies ??= request.headers.cookie ? request.server.parseCookie(request.headers.cookie) : {};
  return request.cookies[name];
}

export function sessionCookie(request: FastifyRequest): string | undefined {
  const value = requestCookie(request, SESSION_COOKIE);
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Secure when the request came over https: on the socket, or, with TRUST_PROXY, as the proxy's
 * `X-Forwarded-Proto` says (Fastify's `request.protocol` believes that header only then).
 */
function attributes(request: FastifyRequest, maxAgeSeconds: number) {
  return { path: '/', sameSite: 'lax' as const, secure: request.protocol === 'https', maxAge: maxAgeSeconds };
}

export function setSessionCookies(
  request: FastifyRequest,
  reply: FastifyReply,
  session: { id: string; csrfToken: string; maxAgeSeconds: number },
): void {
  reply.setCookie(SESSION_COOKIE, session.id, { ...attributes(request, session.maxAgeSeconds), httpOnly: true });
  reply.setCookie(CSRF_COOKIE, session.csrfToken, attributes(request, session.maxAgeSeconds));
}

export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { ...attributes(request, 0), httpOnly: true });
  reply.clearCookie(CSRF_COOKIE, attributes(request, 0));
}
