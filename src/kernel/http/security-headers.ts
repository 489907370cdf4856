/**
 * The security headers of every answer, set in one place (an onSend hook):
 * - `X-Content-Type-Options: nosniff` on all of them;
 * - on everything a browser may render or run as a document (anything but JSON: the console's
 *   pages and files, the Swagger UI, CSV exports), a Content-Security-Policy that allows only this
 *   origin's files (no inline script, no eval) and no framing (`frame-ancestors 'none'`, and
 *   `X-Frame-Options: DENY` for browsers that predate it);
 * - `Cache-Control: no-store` on every management API answer (`/api/…` but the OpenAPI document
 *   and its UI) that did not choose its caching itself: they carry keys, tokens, people and
 *   organizations, which no browser or shared cache may keep.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

function contentSecurityPolicy(styleSources: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src ${styleSources}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy("'self'");
/**
 * The Swagger UI renders one inline `<style>` element (in its logo's SVG): that element alone is
 * allowed, by the hash of its text; nothing else inline.
 */
const SWAGGER_UI_STYLE_HASH = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";
export const SWAGGER_UI_CONTENT_SECURITY_POLICY = contentSecurityPolicy(`'self' ${SWAGGER_UI_STYLE_HASH}`);

const FRAMING_AND_REFERRER = {
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

function isJson(contentType: string): boolean {
  return /^application\/(?:[\w.+-]*\+)?json\b/i.test(contentType);
}

/** The route's path pattern when one matched (normalized: no doubled slashes, no query), else the raw path. */
function pathOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? request.url.split('?')[0];
}

function isManagementApi(path: string): boolean {
  return path.startsWith('/api/') && !path.startsWith('/api/schema');
}

/**
 * The security headers of an answer with this content type (empty: none) to a request for this
 * path (the route's pattern when one matched); `cache-control` only when the answer chose none.
 */
export function securityHeaders(path: string, contentType: string, hasCacheControl: boolean): Record<string, string> {
  const headers: Record<string, string> = { 'x-content-type-options': 'nosniff' };
  // A file streamed by @fastify/static gets its type after this hook: no type yet is a document too.
  if (!isJson(contentType)) {
    headers['content-security-policy'] = path.startsWith('/api/schema/swagger-ui') ? SWAGGER_UI_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY;
    Object.assign(headers, FRAMING_AND_REFERRER);
  }
  if (isManagementApi(path) && !hasCacheControl) headers['cache-control'] = 'no-store';
  return headers;
}

export function setSecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(securityHeaders(pathOf(request), String(reply.getHeader('content-type') ?? ''), reply.hasHeader('cache-control')));
}

export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    setSecurityHeaders(request, reply);
    done(null, payload);
  });
}
