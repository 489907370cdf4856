import type { Pool } from '../db/pool.ts';
import type { SdkAuth } from './auth.ts';
import type { SdkCache } from './cache.ts';

/** What the SDK endpoints share: the database, the per-project views and the token checks. */
export interface SdkDeps {
  pool: Pool;
  cache: SdkCache;
  auth: SdkAuth;
}
