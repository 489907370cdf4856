import type { Pool } from '../db/pool.ts';
import type { PlatformDeps } from '../deps.ts';
import type { ProjectTokens } from '../events/ingestion/tokens.ts';
import type { FlagCache } from '../flags/cache.ts';
import type { SdkAuth } from './auth.ts';
import type { SdkCache } from './cache.ts';

/** What the SDK endpoints share: the database, the per-project views and the token checks. */
export interface SdkDeps {
  pool: Pool;
  cache: SdkCache;
  auth: SdkAuth;
}

/** What the SDK area is built from: the platform's, the flag cache its views read, and project tokens. */
export interface SdkSetupDeps extends PlatformDeps {
  flagCache: FlagCache;
  projectTokens: ProjectTokens;
}
