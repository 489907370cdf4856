/**
 * The one place a written flag is committed from, whoever wrote it (the API, its actions, survey-
 * owned flags, usage dashboards): its activity entry on the same transaction, its change notice,
 * the project's flag change counter bumped last before COMMIT (so that every process can prove its
 * cached flags current), and this process's flag cache after COMMIT, before any subscriber hears
 * the change (so that the cache, holding the new version, does not read the flag back). A create's
 * insert bumps the counter itself and writes the flag with its count (`stamped`): the last
 * statement then only writes the entries and notices.
 *
 * The activity entries and change notices of a transaction's flag writes travel in its last
 * statement, the counter bump: one round trip for all of them, however many flags it wrote. A write
 * on a savepoint (a batch of scheduled changes that had a failure) writes its entry at once, so that
 * it rolls back with the savepoint.
 */
import { unitRunningOn, type UnitOfWork, type WriteTx } from '../db/unit-of-work.ts';
import { activityInsertCtes, recordActivity, type NewActivity } from '../accounts/activity/store.ts';
import { CHANGES_CHANNEL, type ChangeBus } from '../kernel/changes/bus.ts';
import { flagActivityEntry, type ActivityTrigger } from './activity.ts';
import { bumpFlagChanges, writeFolded, type FoldedWrites } from './change-store.ts';
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
  /**
   * The statement that wrote the flag also bumped its project's change counter and wrote the flag
   * with that count (`insertFlag`): the last statement need not bump or stamp for it.
   */
  stamped?: boolean;
}

/** What a transaction's flag writes leave to its last statement. */
interface UnitWrites {
  flags: FlagRecord[];
  entries: NewActivity[];
}

/** Each open transaction's flag writes, keyed by its own unit (not a savepoint's). */
const writtenInUnit = new WeakMap<UnitOfWork, UnitWrites>();

/**
 * The writes of `writing`'s transaction; the first asks for the last statement. Asked before the
 * write publishes its notice, so that this step runs before the bus's own and takes the notices.
 */
function writesOf(bus: ChangeBus, root: UnitOfWork): UnitWrites {
  let writes = writtenInUnit.get(root);
  if (!writes) {
    const collected: UnitWrites = { flags: [], entries: [] };
    writes = collected;
    writtenInUnit.set(root, collected);
    root.beforeCommit('flag-change-counters', (client) => finishFlagWrites(bus, root, client, collected));
  }
  return writes;
}

async function finishFlagWrites(bus: ChangeBus, root: UnitOfWork, client: WriteTx, writes: UnitWrites): Promise<void> {
  const byProject = new Map<number, FlagRecord[]>();
  for (const flag of writes.flags) {
    const flags = byProject.get(flag.project_id);
    if (flags) flags.push(flag);
    else byProject.set(flag.project_id, [flag]);
  }
  // The entries, their followers' rows (the webhooks outbox) and the notices go with the first bump.
  const params: unknown[] = [];
  const ctes = await activityInsertCtes(root, writes.entries, params);
  const payloads = bus.takeNotices(root);
  let folded: FoldedWrites | undefined = { ctes, notices: payloads ? { channel: CHANGES_CHANNEL, payloads } : null, params };
  // Every flag stamped by its own statement (creates): the entries and notices need no bump to ride on.
  if (byProject.size === 0) return writeFolded(client, folded);
  // In project order, so that two units writing flags of the same projects cannot deadlock here.
  // A flag whose savepoint rolled back is stamped all the same, which only makes caches read it again.
  for (const projectId of [...byProject.keys()].sort((a, b) => a - b)) {
    const flags = byProject.get(projectId) ?? [];
    const count = await bumpFlagChanges(client, projectId, [...new Set(flags.map((flag) => flag.id))], folded);
    folded = undefined;
    for (const flag of flags) flag.change_seq = count;
  }
}

export async function commitFlagWrite(deps: Pick<FlagWriteDeps, 'bus' | 'flagCache'>, unit: UnitOfWork, write: FlagWrite): Promise<void> {
  const { before, after } = write;
  const versioned = write.versioned !== false;
  const root = unitRunningOn(unit.client) ?? unit;
  const writes = writesOf(deps.bus, root);
  const entry = versioned ? flagActivityEntry(before, after, write.actorId, write.trigger ?? null) : null;
  if (entry !== null) {
    if (root === unit) writes.entries.push(entry);
    else await recordActivity(unit.client, entry);
  }
  // The cache takes the record before subscribers hear the change (it then need not read it back).
  unit.afterCommit(() => deps.flagCache.put(after));
  await deps.bus.publish(unit, { kind: 'flag', projectId: after.project_id, id: after.id, ...(versioned ? { version: after.version } : {}) });
  if (write.stamped !== true) writes.flags.push(after);
}
