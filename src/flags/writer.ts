/**
 * The one place a written flag is committed from, whoever wrote it (the API, its actions, survey-
 * owned flags, usage dashboards): its activity entry on the same transaction, its change notice,
 * and this process's flag cache after COMMIT, before any subscriber hears the change (so that the
 * cache, holding the new version, does not read the flag back).
 */
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { recordFlagActivity, type ActivityTrigger } from './activity.ts';
import type { FlagRecord } from './record.ts';
import type { FlagWriteDeps } from './write-deps.ts';

export interface FlagWrite {
  /** The flag as it was (null: created now). */
  before: FlagRecord | null;
  after: FlagRecord;
  /** Who wrote it; null = the system (jobs). */
  actorId: number | null;
  /**
   * false: a write that neither moves the version nor shows in the activity log (the usage
   * dashboard's link): every cache reads the flag back.
   */
  versioned?: boolean;
  /** The job that made the change (its activity entry's `detail.trigger`). */
  trigger?: ActivityTrigger;
}

export async function commitFlagWrite(deps: Pick<FlagWriteDeps, 'bus' | 'flagCache'>, unit: UnitOfWork, write: FlagWrite): Promise<void> {
  const { before, after } = write;
  const versioned = write.versioned !== false;
  if (versioned) await recordFlagActivity(unit.client, before, after, write.actorId, write.trigger ?? null);
  unit.afterCommit(() => deps.flagCache.put(after));
  await deps.bus.publish(unit, { kind: 'flag', projectId: after.project_id, id: after.id, ...(versioned ? { version: after.version } : {}) });
}
