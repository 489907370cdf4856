/**
 * The accounts area: users, organizations and their members and invites, projects, personal API
 * keys, sessions and sign-in, and the authentication hook every other area's routes pass through.
 * See docs/accounts.md.
 */
import cookie from '@fastify/cookie';
import { defineArea } from '../kernel/area.ts';
import { Authenticator, DEFAULT_SESSION_LIMITS, type SessionLimits } from './auth/authenticator.ts';
import { installAuthentication } from './auth/hook.ts';
import type { AccountsDeps } from './deps.ts';
import { inviteRoutes } from './invites/routes.ts';
import { memberRoutes } from './members/routes.ts';
import { organizationRoutes } from './organizations/routes.ts';
import { personalApiKeyRoutes } from './personal-api-keys/routes.ts';
import { projectRoutes } from './projects/routes.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { DEFAULT_THROTTLE, type ThrottleRule } from './sessions/throttle.ts';
import { userRoutes } from './users/routes.ts';

export interface AccountsOptions {
  /** SITE_URL: the public base URL for links; absent: each request's own origin. */
  siteUrl?: string | null;
  sessionLimits?: SessionLimits;
  loginThrottle?: ThrottleRule;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Personal API keys, sessions and project reach (the sdk area checks keys and projects with it). */
    authenticator: Authenticator;
  }
}

export const accounts = defineArea<AccountsOptions>('accounts', ['kernel'], async (app, options) => {
  const authenticator = new Authenticator(app.kernel.pool, app.kernel.bus, app.kernel.counters, options.sessionLimits ?? DEFAULT_SESSION_LIMITS);
  app.decorate('authenticator', authenticator);
  const deps: AccountsDeps = {
    ...app.kernel,
    authenticator,
    accounts: { siteUrl: options.siteUrl ?? null, throttle: options.loginThrottle ?? DEFAULT_THROTTLE },
  };
  // Before the authentication hook: it reads the session cookie.
  await app.register(cookie);
  installAuthentication(app, authenticator, app.kernel.counters);

  await app.register(sessionRoutes(deps));
  await app.register(userRoutes(deps));
  await app.register(organizationRoutes(deps));
  await app.register(memberRoutes(deps));
  await app.register(inviteRoutes(deps));
  await app.register(projectRoutes(deps));
  await app.register(personalApiKeyRoutes(deps));
});
