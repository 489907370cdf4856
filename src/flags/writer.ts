/**
 * The one place a written flag is committed from, whoever wrote it (the API, its actions, survey-
 * owned flags, usage dashboards): its activity entry on the same transaction, its change notice,
 * the project's flag change counter bumped last before COMMIT (so that every process can prove its
 * cached flags current), and this process's flag cache after COMMIT, before any subscriber hears
 * the change (so that the cache, holding the new version, does not read the flag back).
 */
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { recordFlagActivity, type ActivityTrigger } from './activity.ts';
import { bumpFlagChanges } from './change-store.ts';
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

/** The flags each open unit of work has written, stamped with their project's count before COMMIT. */
const writtenInUnit = new WeakMap<UnitOfWork, FlagRecord[]>();

function stampBeforeCommit(unit: UnitOfWork, record: FlagRecord): void {
  let written = writtenInUnit.get(unit);
  if (!written) {
    const records: FlagRecord[] = [];
    written = records;
    writtenInUnit.set(unit, records);
    unit.beforeCommit('flag-change-counters', async (client) => {
      const byProject = new Map<number, FlagRecord[]>();
      for (const flag of records) byProject.set(flag.project_id, [...(byProject.get(flag.project_id) ?? []), flag]);
      // In project order, so that two units writing flags of the same projects cannot deadlock here.
      for (const projectId of [...byProject.keys()].sort((a, b) => a - b)) {
        const flags = byProject.get(projectId) ?? [];
        const count = await bumpFlagChanges(client, projectId, [...new Set(flags.map((flag) => flag.id))]);
        for (const flag of flags) flag.change_seq = count;
      }
    });
  }
  written.push(record);
}

export async function commitFlagWrite(deps: Pick<FlagWriteDeps, 'bus' | 'flagCache'>, unit: UnitOfWork, write: FlagWrite): Promise<void> {
  const { before, after } = write;
  const versioned = write.versioned !== false;
  if (versioned) await recordFlagActivity(unit.client, before, after, write.actorId, write.trigger ?? null);
  stampBeforeCommit(unit, after);
  unit.afterCommit(() => deps.flagCache.put(after));
  await deps.bus.publish(unit, { kind: 'flag', projectId: after.project_id, id: after.id, ...(versioned ? { version: after.version } : {}) });
}
