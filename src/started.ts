import type { Config } from './config.ts';
import type { Pool } from './db/pool.ts';
import { bootstrap } from './accounts/bootstrap.ts';
import { ensureFirstOwner } from './accounts/first-owner.ts';
import { signInLink } from './accounts/sessions/sign-in-links.ts';
import { redirectUriOf } from './accounts/oidc/provider.ts';

/** What the start-up work hands to the person at the terminal (printed, never logged). */
export interface FirstStart {
  /** The key created by this start, in clear; null when none was created. */
  generatedKey: string | null;
  projectId: number;
  /** A one-time sign-in token for the owner while nobody has a password; null otherwise. */
  signInToken: string | null;
  /** Whom the token signs in. */
  signInEmail: string | null;
}

/**
 * Project 1, its owner and key (INIT_API_KEY, INIT_ADMIN_EMAIL/PASSWORD): once per start, in one
 * process. `warn` is told when INIT_ADMIN_* are ignored (they name someone else than the owner).
 */
export async function prepareFirstStart(pool: Pool, config: Config, warn: (message: string) => void): Promise<FirstStart> {
  const { generatedKey, projectId } = await bootstrap(pool, config.initApiKey, config.initAdminEmail);
  const { signInToken, signInEmail, warning } = await ensureFirstOwner(pool, { email: config.initAdminEmail, password: config.initAdminPassword });
  if (warning) warn(warning);
  return { generatedKey, projectId, signInToken, signInEmail };
}

/** The lines a person starting the service reads: the URL and, on a first start, the key and the way in. */
export function printStarted(url: string, siteUrl: string | null, { generatedKey, projectId, signInToken, signInEmail }: FirstStart, sso = false): void {
  process.stdout.write(`\nBellwether is running at ${url}\n`);
  if (sso && siteUrl) process.stdout.write(`Single sign-on: register this redirect URI with the provider: ${redirectUriOf(siteUrl)}\n`);
  if (generatedKey) {
    process.stdout.write(
      `First start: created a personal API key with scope "*" (shown only this once):\n\n    ${generatedKey}\n\n` +
        `Try: curl -H "Authorization: Bearer ${generatedKey}" ${url}/api/projects/${projectId}/feature_flags/\n\n`,
    );
  }
  if (signInToken) {
    process.stdout.write(
      `Open the console and sign in as its owner${signInEmail ? `, ${signInEmail}` : ''} (one-time link, valid 24 hours; set a password there):\n\n` +
        `    ${signInLink(siteUrl ?? url, signInToken)}\n\n`,
    );
  }
}
