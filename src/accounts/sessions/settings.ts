import type { FastifyRequest } from 'fastify';
import type { OidcSettings } from '../oidc/settings.ts';
import type { ThrottleRule } from './throttle.ts';

/** What sign-in, invites and links need beyond the database. */
export interface AccountSettings {
  /** SITE_URL: the public base URL put in links (invites, sign-in links); null: the request's own origin. */
  siteUrl: string | null;
  throttle: ThrottleRule;
  /** Single sign-on's settings (null: not configured): with OIDC_ENFORCED, who may not use a password. */
  sso: OidcSettings | null;
}

/** The base URL for links shown or sent to people. */
export function publicBaseUrl(request: FastifyRequest, siteUrl: string | null): string {
  return (siteUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}
