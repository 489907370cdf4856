/**
 * The one place a written flag is committed from, whoever wrote it (the API, its actions, survey-
 * owned flags, usage dashboards): its activity entry on the same transaction, its change notice,
 * the project's flag change counter bumped last before COMMIT (so that every process can prove its
 * cached flags current), and this process's flag cache after COMMIT, before any subscriber hears
 * the change (so that the cache, holding the new version, does not read the flag back).
 */
import { unitRunningOn, type UnitOfWork } from '../db/unit-of-work.ts';
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

function stampBeforeCommit(writing: UnitOfWork, record: FlagRecord): void {
  // Keyed by the transaction's own unit, not a savepoint's (a batch of scheduled changes writes
  // each flag on a savepoint of its own): every flag the transaction wrote is stamped by its one
  // bump. A flag whose savepoint rolled back is stamped all the same, which only makes caches
  // read it again.
  const unit = unitRunningOn(writing.client) ?? writing;
  let written = writtenInUnit.get(unit);
  if (!written) {
    const records: FlagRecord[] = [];
    written = records;
    writtenInUnit.set(unit, records);
    unit.beforeCommit('flag-change-counters', async (client) => {
      const byProject = new Map<number, FlagRecord[]>();
      for (const flag of records) {
        const flags = byProject.get(flag.project_id);
        if (flags) flags.push(flag);
        else byProject.set(flag.project_id, [flag]);
      }
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
  // The cache takes the record before subscribers hear the change (it then need not read it back).
  unit.afterCommit(() => deps.flagCache.put(after));
  // Published before the counter is stamped: both run just before COMMIT, in the order first asked
  // for, and the counter's row lock is to be held last and briefest.
  await deps.bus.publish(unit, { kind: 'flag', projectId: after.project_id, id: after.id, ...(versioned ? { version: after.version } : {}) });
  stampBeforeCommit(unit, after);
}
