import type { Pool } from '../db/pool.ts';
import type { ChangeBus } from '../platform/changes/bus.ts';
import type { FlagCache } from './cache.ts';

/** What a flag write needs: the database, the change notices, and this process's cache. */
export interface FlagWriteDeps {
  pool: Pool;
  bus: ChangeBus;
  flagCache: FlagCache;
}
