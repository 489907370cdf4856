import type { Pool } from '../db/pool.ts';
import type { UnitsOfWork } from '../db/unit-of-work.ts';
import type { ChangeBus } from '../kernel/changes/bus.ts';
import type { FlagCache } from './cache.ts';

/** What a flag write needs: the database (reads, and units of work for writes), the change notices, and this process's cache. */
export interface FlagWriteDeps {
  pool: Pool;
  units: UnitsOfWork;
  bus: ChangeBus;
  flagCache: FlagCache;
}
