import type { Pool } from '../db/pool.ts';
import { flagsCounter, type ChangeCounters } from '../kernel/changes/counters.ts';
import { ProjectCache } from '../kernel/project-cache.ts';
import type { ChangeBus } from '../kernel/changes/bus.ts';
import { flagChangeCounts, flagsChangedSince } from './change-store.ts';
import { renderFlag, type RenderedFlag } from './present.ts';
import type { FlagRecord } from './record.ts';
import { flagsByIds, lastCalledWrittenSince, projectFlags } from './store.ts';

/**
 * How far back each look for `last_called_at` written elsewhere reaches before the previous look's
 * clock: a write stamped just before that look may have committed just after it.
 */
const LAST_CALLED_SLACK_MS = 10_000;

/** Newest first, then by id: the list's default order. */
function newestFirst(a: RenderedFlag, b: RenderedFlag): number {
  return b.record.created_at.getTime() - a.record.created_at.getTime() || b.record.id - a.record.id;
}

/** Every flag of one project (deleted and survey-owned ones too), rendered once. */
export class ProjectFlags {
  private readonly byId = new Map<number, RenderedFlag>();
  private readonly liveKeys = new Map<string, number>();
  private ordered: RenderedFlag[] | null = null;
  /**
   * Goes up on every change but `last_called_at`, so views derived from these flags (the SDK
   * definitions, which do not show it) know to rebuild.
   */
  revision = 0;
  /** Every flag write the project's change counter counted up to this is held here. */
  seen: number;
  /** The read of the writes counted after `seen` under way, and the count it brings `seen` to. */
  catchingUp: { to: number; done: Promise<void> } | null = null;

  constructor(records: FlagRecord[], seen = 0) {
    this.seen = seen;
    for (const record of records) this.put(record);
  }

  get(id: number): RenderedFlag | undefined {
    return this.byId.get(id);
  }

  /** The id of the live flag holding `key`, if any. */
  liveKeyOwner(key: string): number | undefined {
    return this.liveKeys.get(key);
  }

  /** Newest first. */
  all(): RenderedFlag[] {
    this.ordered ??= [...this.byId.values()].sort(newestFirst);
    return this.ordered;
  }

  /** Takes `record` unless the flag held was written later (a higher change count). */
  put(record: FlagRecord): void {
    const previous = this.byId.get(record.id)?.record;
    if (previous && previous.change_seq > record.change_seq) return;
    if (previous && !previous.deleted && this.liveKeys.get(previous.key) === record.id) this.liveKeys.delete(previous.key);
    if (!record.deleted) this.liveKeys.set(record.key, record.id);
    this.byId.set(record.id, renderFlag(record));
    this.ordered = null;
    this.revision++;
  }

  /** `last_called_at` moved forward: the flag is rendered again, the revision stays. */
  calledAt(id: number, at: Date): void {
    const current = this.byId.get(id)?.record;
    if (!current || (current.last_called_at !== null && current.last_called_at >= at)) return;
    this.byId.set(id, renderFlag({ ...current, last_called_at: at }));
    this.ordered = null;
  }
}

/**
 * The flags of each project in memory, so reads cost at most one indexed query.
 *
 * `project()` (the management API and console, and every write-side read) answers the flags proven
 * current: it reads the project's flag change counter (one row; concurrent callers share a read,
 * see CoalescedRead) and, when writes were counted since the copy held, reads back just those flags
 * before answering. `heard()` (the SDK endpoints) answers the copy as change notices left it, with
 * no query: it lags a write elsewhere by the notice's delivery (docs/operations.md).
 *
 * The flag writer of this process puts the committed record; a change heard for a version not held
 * yet (written elsewhere) is read back, in order per project, the notices heard meanwhile together. A lost notice
 * connection empties the cache.
 */
export class FlagCache {
  private readonly projects: ProjectCache<ProjectFlags>;
  private readonly refreshQueues = new Map<number, Promise<void>>();
  /** Per project, the flags whose notices wait for the next read back (see refresh). */
  private readonly refreshWaiting = new Map<number, Set<number>>();
  /** The database's clock at the previous `syncLastCalled`. */
  private lastCalledSeen = new Date(0);

  constructor(
    private readonly pool: Pool,
    bus: ChangeBus,
    private readonly counters: ChangeCounters,
  ) {
    this.projects = new ProjectCache(async (projectId) => {
      // Counted first: every write up to that count is in the flags read next.
      const seen = (await flagChangeCounts(pool, [projectId])).get(projectId) ?? 0;
      return new ProjectFlags(await projectFlags(pool, projectId), seen);
    }, 'flags');
    bus.subscribe((change) => {
      if (change.kind === 'flag' && !this.holds(change.projectId, change.id, change.version)) this.refresh(change.projectId, change.id);
      if (change.kind === 'project') this.drop(change.projectId);
    });
    bus.onResync(() => this.clear());
  }

  /**
   * The project's flags, holding every flag write committed before `since` (a request's arrival,
   * performance.now(); default: the call).
   */
  async project(projectId: number, since?: number): Promise<ProjectFlags> {
    const count = await this.counters.get(flagsCounter(projectId), since);
    const flags = await this.projects.get(projectId);
    if (flags.seen < count) await this.catchUp(projectId, flags, count);
    return flags;
  }

  /** The project's flags as this process last heard of them: no query once loaded; may lag writes made elsewhere. */
  async heard(projectId: number): Promise<ProjectFlags> {
    return this.projects.get(projectId);
  }

  /** After this process committed `record`. An earlier write never replaces a later one. */
  put(record: FlagRecord): void {
    this.projects.changed(record.project_id);
    this.projects.peek(record.project_id)?.put(record);
  }

  /** Whether the cache holds the flag at `version` or later already (this process wrote it). */
  private holds(projectId: number, id: number, version: number | undefined): boolean {
    if (version === undefined) return false;
    const current = this.projects.peek(projectId)?.get(id);
    return current !== undefined && current.record.version >= version;
  }

  /**
   * `last_called_at` moved forward (written by this process's ingestion, or found by
   * `syncLastCalled`): the cached records take the new times without a re-read.
   */
  noteLastCalled(projectId: number, updates: readonly { id: number; lastCalledAt: Date }[]): void {
    const project = this.projects.peek(projectId);
    if (!project) return;
    for (const { id, lastCalledAt } of updates) project.calledAt(id, lastCalledAt);
  }

  /**
   * Takes the `last_called_at` times other processes wrote since the previous call, for the
   * projects held here (one query; `last_called_at` sends no change notice).
   */
  async syncLastCalled(): Promise<void> {
    const projectIds = this.projects.loadedIds();
    if (projectIds.length === 0) return;
    const since = new Date(this.lastCalledSeen.getTime() - LAST_CALLED_SLACK_MS);
    const { now, flags } = await lastCalledWrittenSince(this.pool, projectIds, since);
    this.lastCalledSeen = now;
    for (const flag of flags) this.noteLastCalled(flag.project_id, [{ id: flag.id, lastCalledAt: flag.last_called_at }]);
  }

  drop(projectId: number): void {
    this.projects.drop(projectId);
  }

  clear(): void {
    this.projects.clear();
  }

  /**
   * Reads the flags written after `flags.seen` (read after the count `to` was, so it holds every
   * write counted up to it). Callers wanting no more than a read under way share it.
   */
  private async catchUp(projectId: number, flags: ProjectFlags, to: number): Promise<void> {
    const underWay = flags.catchingUp;
    if (underWay && underWay.to >= to) return underWay.done;
    const done = (async () => {
      const since = flags.seen;
      const records = await flagsChangedSince(this.pool, projectId, since);
      for (const record of records) flags.put(record);
      flags.seen = Math.max(flags.seen, to);
    })();
    flags.catchingUp = { to, done };
    try {
      await done;
    } finally {
      if (flags.catchingUp?.done === done) flags.catchingUp = null;
    }
  }

  /**
   * Reads back a flag another process wrote. The notices of one project are read in turn, and the
   * ones heard while a read waits for its turn join it: a burst of notices (a batch of scheduled
   * changes elsewhere) costs a few reads of many flags, not one read per flag.
   */
  private refresh(projectId: number, id: number): void {
    this.projects.changed(projectId);
    if (!this.projects.peek(projectId)) return;
    const waiting = this.refreshWaiting.get(projectId);
    if (waiting) {
      waiting.add(id);
      return;
    }
    const ids = new Set([id]);
    this.refreshWaiting.set(projectId, ids);
    const previous = this.refreshQueues.get(projectId) ?? Promise.resolve();
    const next = previous.then(async () => {
      // From here on, notices wait for the next read.
      if (this.refreshWaiting.get(projectId) === ids) this.refreshWaiting.delete(projectId);
      const project = this.projects.peek(projectId);
      if (!project) return;
      for (const record of await flagsByIds(this.pool, projectId, [...ids])) project.put(record);
    });
    const settled = next.catch(() => this.drop(projectId));
    this.refreshQueues.set(projectId, settled);
    void settled.finally(() => {
      if (this.refreshQueues.get(projectId) === settled) this.refreshQueues.delete(projectId);
    });
  }
}
