import type { Pool } from '../db/pool.ts';
import type { UnitsOfWork } from '../db/unit-of-work.ts';
import type { ChangeBus } from './changes/bus.ts';
import type { ChangeCounters } from './changes/counters.ts';

/**
 * What the kernel gives every area: the database (reads on the pool, every write in a unit of
 * work) and the change notices. An area that needs more declares it in its own deps.ts.
 */
export interface Kernel {
  pool: Pool;
  /** Every write runs in one of these units of work (effects after commit, nothing on rollback). */
  units: UnitsOfWork;
  bus: ChangeBus;
  /** The change counters that prove in-memory copies current (shared reads, one under way at a time). */
  counters: ChangeCounters;
}
