import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AccountsDeps } from '../deps.ts';
import { routeOptions } from '../../kernel/http/route-options.ts';
import { checkCsrf, checkSameOrigin } from '../auth/csrf.ts';
import { clearSessionCookies, sessionCookie, setSessionCookies } from '../auth/session-cookies.ts';
import { LoginBody, LoginSuccess, OneTimeLoginBody } from './schemas.ts';
import { signInWithPassword, signInWithToken } from './login.ts';
import { endSession } from './service.ts';

const route = routeOptions(['sessions']);

/** PostHog's sign-in paths, answered with the session and CSRF cookies (docs/accounts.md). */
export function sessionRoutes(deps: AccountsDeps) {
  const loginDeps = { pool: deps.pool, units: deps.units, authenticator: deps.authenticator, throttle: deps.accounts.throttle, sso: deps.accounts.sso };

  return async function register(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/api/login',
      route.open('Sign in with e-mail and password: sets the session and CSRF cookies', {
        description:
          'Wrong e-mail or password: 400 `invalid_credentials`. Failed attempts are throttled per account and per ' +
          'client address (429 with `Retry-After`). A browser `Origin` must be this site.',
        body: LoginBody, response: { 200: LoginSuccess },
      }),
      async (request, reply) => {
        checkSameOrigin(request, deps.accounts.siteUrl);
        const session = await signInWithPassword(loginDeps, request.body, request.ip);
        setSessionCookies(request, reply, session);
        return { success: true as const };
      },
    );

    app.post(
      '/api/login/one-time',
      route.open('Sign in with the token of a one-time sign-in link (single use, valid 24 hours)', { body: OneTimeLoginBody, response: { 200: LoginSuccess } }),
      async (request, reply) => {
        checkSameOrigin(request, deps.accounts.siteUrl);
        const session = await signInWithToken(loginDeps, request.body.token);
        setSessionCookies(request, reply, session);
        return { success: true as const };
      },
    );

    app.post(
      '/api/logout',
      route.open('Sign out: ends the session (it needs `X-CSRFToken`) and clears both cookies', {
        response: { 204: Type.Null({ description: 'Signed out.' }) },
      }),
      async (request, reply) => {
        const cookie = sessionCookie(request);
        const principal = cookie === undefined ? null : await deps.authenticator.authenticateSession(cookie).catch(() => null);
        if (principal) {
          checkCsrf(request, principal);
          await endSession(deps.units, deps.bus, principal.sessionHash);
        }
        clearSessionCookies(request, reply);
        return reply.code(204).send(null);
      },
    );
  };
}
