import type { Pool } from '../db/pool.ts';
import type { SdkAuth } from './auth.ts';
import type { SdkCache } from './cache.ts';
import type { PersonCache } from './person-cache.ts';

/** What the SDK endpoints share: the database, the per-project views, the persons and the token checks. */
export interface SdkDeps {
  pool: Pool;
  cache: SdkCache;
  /** Stored persons for `/flags` and `/decide` (person-cache.ts). */
  persons: PersonCache;
  auth: SdkAuth;
}
