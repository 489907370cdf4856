import type { ReadHandle } from '../db/pool.ts';
import { referenceOf } from '../cohorts/definitions.ts';
import { liveCohortsByIds } from '../cohorts/store.ts';
import { allLiveFlags, liveFlagsByIds } from './store.ts';
import type { FlagLookup } from './validation/index.ts';

/** What filter validation needs to know about the rest of the project, read from the database. */
export function flagLookup(db: ReadHandle, projectId: number): FlagLookup {
  return {
    flagsByIds: (ids) => liveFlagsByIds(db, projectId, ids),
    allLiveFlags: () => allLiveFlags(db, projectId),
    cohortsByIds: async (ids) => (await liveCohortsByIds(db, projectId, ids)).map(referenceOf),
  };
}
