/**
 * The relying party, on openid-client (a certified implementation): discovery at start, the
 * authorization URL (code flow, PKCE S256, state, nonce), the code exchange with the ID token
 * checked (signature against the provider's JWKS, issuer, audience, expiry, nonce) and userinfo.
 */
import * as oidc from 'openid-client';
import type { OidcSettings } from './settings.ts';

/** Every request to the provider gives up after this long (discovery, token, JWKS, userinfo). */
const PROVIDER_TIMEOUT_SECONDS = 10;
export const SCOPES = 'openid email profile';

export interface SsoProvider {
  settings: OidcSettings;
  /** `{SITE_URL}/api/auth/oidc/callback`: registered with the provider. */
  redirectUri: string;
  /** The issuer as the discovery document names it (identities are kept per issuer). */
  issuer: string;
  config: oidc.Configuration;
}

export function redirectUriOf(siteUrl: string): string {
  return `${siteUrl.replace(/\/+$/, '')}/api/auth/oidc/callback`;
}

/** Reads the provider's discovery document; a provider that cannot be read stops the start with a message saying what to check. */
export async function discoverProvider(settings: OidcSettings, siteUrl: string): Promise<SsoProvider> {
  const insecure = new URL(settings.issuerUrl).protocol === 'http:';
  let config: oidc.Configuration;
  try {
    config = await oidc.discovery(new URL(settings.issuerUrl), settings.clientId, settings.clientSecret, undefined, {
      timeout: PROVIDER_TIMEOUT_SECONDS,
      // Plain http is accepted for a loopback issuer only (settings.ts refuses any other).
      execute: insecure ? [oidc.allowInsecureRequests] : [],
    });
  } catch (error) {
    throw new Error(
      `single sign-on: could not read the OpenID Connect discovery document of OIDC_ISSUER_URL ${settings.issuerUrl} ` +
        `(${describe(error)}). Check the URL (the provider's issuer, serving /.well-known/openid-configuration) and that it can be reached from here.`,
    );
  }
  // Check the ID token's signature against the provider's keys even though it came over TLS from
  // the token endpoint: a token signed by any other key is refused.
  oidc.enableNonRepudiationChecks(config);
  const metadata = config.serverMetadata();
  if (!metadata.code_challenge_methods_supported?.includes('S256') && metadata.code_challenge_methods_supported !== undefined) {
    throw new Error(`single sign-on: the provider at ${settings.issuerUrl} does not support PKCE (S256), which sign-in requires`);
  }
  return { settings, redirectUri: redirectUriOf(siteUrl), issuer: metadata.issuer, config };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

export function authorizationUrl(provider: SsoProvider, pending: { state: string; nonce: string; codeChallenge: string }): string {
  return oidc
    .buildAuthorizationUrl(provider.config, {
      redirect_uri: provider.redirectUri,
      scope: SCOPES,
      code_challenge: pending.codeChallenge,
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    })
    .toString();
}

export const codeChallengeOf = (verifier: string) => oidc.calculatePKCECodeChallenge(verifier);

/** What sign-in needs from the provider, after every check. */
export interface ProviderAccount {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  givenName: string;
  familyName: string;
}

/** Why the provider's answer does not sign anyone in; the console explains each. */
export type SsoFailure =
  | 'invalid_state'
  | 'denied'
  | 'provider_unavailable'
  | 'rejected'
  | 'invalid_token'
  | 'email_unverified'
  | 'domain_not_allowed'
  | 'no_organization';

export class SsoRefused extends Error {
  constructor(
    readonly reason: SsoFailure,
    detail?: string,
  ) {
    super(detail ?? reason);
  }
}

function failureOf(error: unknown): SsoFailure {
  if (error instanceof oidc.AuthorizationResponseError) return 'denied';
  if (error instanceof oidc.ResponseBodyError) return 'rejected';
  // fetch failing (refused, reset, DNS) or timing out, on the token, JWKS or userinfo request.
  const cause = error instanceof Error ? error.cause : undefined;
  for (const candidate of [error, cause]) {
    if (candidate instanceof Error && (candidate.name === 'TimeoutError' || candidate.name === 'AbortError')) return 'provider_unavailable';
    if (candidate instanceof TypeError && /fetch failed/.test(candidate.message)) return 'provider_unavailable';
  }
  if (error instanceof oidc.ClientError && error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') return 'provider_unavailable';
  return 'invalid_token';
}

type Claims = Record<string, unknown>;

/**
 * `email_verified` from userinfo, else the ID token. A provider that sends none at all may say it
 * with Microsoft Entra ID's optional `xms_edov` claim (the e-mail's domain is verified by the
 * tenant that owns it): Entra never sends `email_verified` for work accounts.
 */
function emailVerified(info: Claims, claims: Claims): boolean {
  const stated = info.email_verified ?? claims.email_verified;
  if (stated !== undefined) return stated === true;
  const domainOwner = info.xms_edov ?? claims.xms_edov;
  return domainOwner === true || domainOwner === 'true' || domainOwner === 1 || domainOwner === '1';
}

function names(info: Claims, claims: Claims): { givenName: string; familyName: string } {
  return {
    givenName: text(info.given_name) || text(claims.given_name) || text(info.name) || text(claims.name),
    familyName: text(info.family_name) || text(claims.family_name),
  };
}

function text(value: unknown, max = 150): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/**
 * The code exchanged (PKCE verifier, state and nonce checked), the ID token verified, then
 * userinfo for the e-mail and names (many providers keep them out of the ID token).
 */
export async function redeemCallback(
  provider: SsoProvider,
  callbackQuery: string,
  checks: { state: string; nonce: string; verifier: string },
): Promise<ProviderAccount> {
  try {
    const currentUrl = new URL(`${provider.redirectUri}?${callbackQuery}`);
    const tokens = await oidc.authorizationCodeGrant(provider.config, currentUrl, {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new SsoRefused('invalid_token', 'no ID token');
    const info = await oidc.fetchUserInfo(provider.config, tokens.access_token, claims.sub);
    const email = text(info.email, 254) || text(claims.email, 254) || null;
    return { subject: claims.sub, email, emailVerified: emailVerified(info, claims), ...names(info, claims) };
  } catch (error) {
    if (error instanceof SsoRefused) throw error;
    throw new SsoRefused(failureOf(error), error instanceof Error ? error.message : String(error));
  }
}
