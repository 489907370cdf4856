/** Single sign-on with OpenID Connect: the settings read from the environment (docs/accounts.md). */

export type SsoLevel = 'member' | 'admin';

export interface OidcSettings {
  /** OIDC_ISSUER_URL: the provider's issuer; its discovery document is read at start. */
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  /** OIDC_ALLOWED_DOMAINS: the e-mail domains that may sign in, lower-case; `*` alone: any domain. */
  allowedDomains: string[] | '*';
  /** OIDC_DEFAULT_LEVEL: the level of a person created at their first sign-in (member by default). */
  defaultLevel: SsoLevel;
  /** OIDC_ENFORCED: people of the allowed domains cannot use passwords (sign-in, reset). */
  enforced: boolean;
  /** OIDC_BUTTON_TEXT: the sign-in page's button ("Sign in with SSO"). */
  buttonText: string;
}

export const DEFAULT_BUTTON_TEXT = 'Sign in with SSO';
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

function fail(message: string): never {
  throw new Error(message);
}

function parseDomains(raw: string | undefined): string[] | '*' {
  const value = raw?.trim() ?? '';
  if (value === '') {
    fail('OIDC_ALLOWED_DOMAINS is required with OIDC_ISSUER_URL: the e-mail domains that may sign in (comma-separated), or * for any');
  }
  if (value === '*') return '*';
  const domains = value.split(',').map((domain) => domain.trim().toLowerCase().replace(/^@/, '')).filter(Boolean);
  for (const domain of domains) if (!DOMAIN.test(domain)) fail(`OIDC_ALLOWED_DOMAINS: "${domain}" is not a domain name`);
  return domains;
}

function parseIssuer(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(`OIDC_ISSUER_URL must be an absolute URL, got "${raw}"`);
  }
  const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    fail(`OIDC_ISSUER_URL must be https (plain http only on this machine's loopback), got "${raw}"`);
  }
  return raw;
}

/** null when OIDC_ISSUER_URL is unset; a half-given configuration stops the start with what is missing. */
export function parseOidcSettings(env: NodeJS.ProcessEnv): OidcSettings | null {
  const issuer = env.OIDC_ISSUER_URL?.trim() ?? '';
  if (issuer === '') {
    const stray = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ALLOWED_DOMAINS', 'OIDC_ENFORCED'].filter((name) => env[name]?.trim());
    if (stray.length) fail(`${stray.join(', ')} given without OIDC_ISSUER_URL`);
    return null;
  }
  const clientId = env.OIDC_CLIENT_ID?.trim() || fail('OIDC_CLIENT_ID is required with OIDC_ISSUER_URL');
  const clientSecret = env.OIDC_CLIENT_SECRET || fail('OIDC_CLIENT_SECRET is required with OIDC_ISSUER_URL');
  const level = (env.OIDC_DEFAULT_LEVEL?.trim().toLowerCase() || 'member') as SsoLevel;
  if (level !== 'member' && level !== 'admin') fail(`OIDC_DEFAULT_LEVEL must be member or admin, got "${env.OIDC_DEFAULT_LEVEL}"`);
  const enforcedRaw = env.OIDC_ENFORCED?.trim().toLowerCase() ?? '';
  if (!['', 'true', '1', 'false', '0'].includes(enforcedRaw)) fail(`OIDC_ENFORCED must be true or false, got "${env.OIDC_ENFORCED}"`);
  const allowedDomains = parseDomains(env.OIDC_ALLOWED_DOMAINS);
  const enforced = enforcedRaw === 'true' || enforcedRaw === '1';
  if (enforced && allowedDomains === '*') fail('OIDC_ENFORCED needs OIDC_ALLOWED_DOMAINS to name the domains (not *): nobody could use a password');
  const buttonText = (env.OIDC_BUTTON_TEXT?.trim() || DEFAULT_BUTTON_TEXT).slice(0, 60);
  return { issuerUrl: parseIssuer(issuer), clientId, clientSecret, allowedDomains, defaultLevel: level, enforced, buttonText };
}

/** The part after the last `@`, lower-case. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

export function domainAllowed(settings: OidcSettings, email: string): boolean {
  return settings.allowedDomains === '*' || settings.allowedDomains.includes(emailDomain(email));
}

/** With OIDC_ENFORCED, an address of an allowed domain signs in only through the provider. */
export function passwordsRefused(settings: OidcSettings | null, email: string): boolean {
  return settings !== null && settings.enforced && domainAllowed(settings, email);
}
