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
import { discoverProvider } from './oidc/provider.ts';
import { oidcRoutes } from './oidc/routes.ts';
import type { OidcSettings } from './oidc/settings.ts';
import { loginMethodRoutes } from './sessions/methods.ts';
import { passwordResetRoutes } from './password-reset/routes.ts';

export interface AccountsOptions {
  /** SITE_URL: the public base URL for links; absent: each request's own origin. */
  siteUrl?: string | null;
  sessionLimits?: SessionLimits;
  loginThrottle?: ThrottleRule;
  /** OIDC_*: single sign-on; its provider's discovery document is read while the app starts. */
  oidc?: OidcSettings | null;
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
  const siteUrl = options.siteUrl ?? null;
  const oidc = options.oidc ?? null;
  if (oidc && siteUrl === null) throw new Error('single sign-on needs SITE_URL: the redirect URI registered with the provider is {SITE_URL}/api/auth/oidc/callback');
  const provider = oidc && siteUrl ? await discoverProvider(oidc, siteUrl) : null;
  const deps: AccountsDeps = {
    ...app.kernel,
    authenticator,
    accounts: { siteUrl, throttle: options.loginThrottle ?? DEFAULT_THROTTLE, sso: oidc },
    mailer: app.mailer,
  };
  // No parsing hook: cookies are parsed when first read (`requestCookie`).
  await app.register(cookie, { hook: false });
  installAuthentication(app, authenticator, app.kernel.counters);

  await app.register(sessionRoutes(deps));
  await app.register(loginMethodRoutes(deps));
  await app.register(passwordResetRoutes(deps));
  if (provider) await app.register(oidcRoutes(deps, provider));
  await app.register(userRoutes(deps));
  await app.register(organizationRoutes(deps));
  await app.register(memberRoutes(deps));
  await app.register(inviteRoutes(deps));
  await app.register(projectRoutes(deps));
  await app.register(personalApiKeyRoutes(deps));
});
