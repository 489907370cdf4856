import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { requestCookie, setSessionCookies } from '../auth/session-cookies.ts';
import { SsoRefused, type SsoProvider } from './provider.ts';
import { beginSignIn, completeSignIn, PENDING_SIGN_IN_TTL_MS } from './sign-in.ts';

/** The PKCE verifier of the sign-in on its way (HttpOnly, sent back only to the callback). */
export const OIDC_COOKIE = 'bellwether_oidc';
const COOKIE_PATH = '/api/auth/oidc/';

const route = routeOptions(['sessions']);
const Redirect = Type.Null({ description: 'A redirect (`Location`).' });
const Param = Type.Optional(Type.String({ maxLength: 4096 }));

function cookieAttributes(request: FastifyRequest, maxAgeSeconds: number) {
  return { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' as const, secure: request.protocol === 'https', maxAge: maxAgeSeconds };
}

/**
 * `GET /api/auth/oidc/login` sends the browser to the provider; the provider sends it back to
 * `GET /api/auth/oidc/callback`, which signs the person in and opens the console, or opens the
 * sign-in page saying why not (`/?sso_error=<reason>`): never an error page of the API.
 */
export function oidcRoutes(deps: AccountsDeps, provider: SsoProvider) {
  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/api/auth/oidc/login',
      route.open('Single sign-on: redirects to the OpenID Connect provider', {
        description: 'At most 100 sign-ins started from one client address may be on their way at once (429 with `Retry-After`).', response: { 302: Redirect },
      }),
      async (request, reply) => {
        const { url, verifier } = await beginSignIn(deps, provider, request.ip);
        reply.setCookie(OIDC_COOKIE, verifier, cookieAttributes(request, PENDING_SIGN_IN_TTL_MS / 1000));
        return reply.redirect(url, 302);
      },
    );

    app.get(
      '/api/auth/oidc/callback',
      route.open("Single sign-on: the provider's redirect back; sets the session and CSRF cookies", {
        description:
          'Signs the person in and redirects to the console (`/`), or to the sign-in page with `sso_error` ' +
          '(`invalid_state`, `denied`, `provider_unavailable`, `rejected`, `invalid_token`, `email_unverified`, ' +
          '`domain_not_allowed`, `no_organization`).',
        querystring: Type.Object({ code: Param, state: Param, error: Param, error_description: Param, iss: Param }), response: { 302: Redirect },
      }),
      async (request, reply) => {
        const verifier = requestCookie(request, OIDC_COOKIE);
        reply.clearCookie(OIDC_COOKIE, cookieAttributes(request, 0));
        const at = request.url.indexOf('?');
        const query = at === -1 ? '' : request.url.slice(at + 1);
        try {
          const session = await completeSignIn(deps, provider, { state: request.query.state, query, verifier });
          setSessionCookies(request, reply, session);
          return reply.redirect('/', 302);
        } catch (error) {
          if (!(error instanceof SsoRefused)) throw error;
          return refuse(request, reply, error);
        }
      },
    );
  };
}

function refuse(request: FastifyRequest, reply: FastifyReply, error: SsoRefused) {
  request.log.warn({ reason: error.reason, detail: error.message.slice(0, 300) }, 'single sign-on refused');
  return reply.redirect(`/?sso_error=${error.reason}`, 302);
}
