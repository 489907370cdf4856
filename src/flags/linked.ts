/**
 * A flag shows rows of other areas (the experiments using it: `experiment_set`, the list's
 * `type=experiment`). When one of them changes, the writing area calls this on its unit of work:
 * the flag is read back and committed unversioned (no activity entry, the version unmoved), so the
 * project's flag change count moves and every cache reads the flag again.
 */
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { findFlag } from './store.ts';
import { commitFlagWrite } from './writer.ts';
import type { FlagWriteDeps } from './write-deps.ts';

export async function flagLinksChanged(deps: Pick<FlagWriteDeps, 'bus' | 'flagCache'>, unit: UnitOfWork, projectId: number, flagId: number): Promise<void> {
  const flag = await findFlag(unit.client, projectId, flagId);
  if (flag) await commitFlagWrite(deps, unit, { before: flag, after: flag, actorId: null, versioned: false });
}
