import type { WriteTx } from '../../db/unit-of-work.ts';
import type { IncomingEvent } from '../types.ts';
import { resolveGroups } from '../groups/resolve.ts';
import { distinctIdLockKeys, personUuidFor } from './identity.ts';
import { applyImpliedUpdates } from './implied.ts';
import { jsonEqual } from '../../accounts/activity/changes.ts';
import { applyPropertyUpdates, mayMergeOn, type Properties } from './properties.ts';
import {
  insertPersonsAndDistinctIds,
  lockDistinctIdsAndMark,
  lookupPersons,
  peekPersons,
  mergePersons,
  releaseMark,
  rollbackToMark,
  updatePersons,
  type DistinctIdRow,
  type NewDistinctId,
} from './store.ts';

/**
 * Person resolution for one ingestion batch: finds or creates the person of every distinct id,
 * links ids on `$identify` / `$create_alias` / `$merge_dangerously` (merging persons where
 * allowed), folds `$set` / `$set_once` / `$unset` in event order, and hands `$groupidentify` and
 * `$groups` to the group resolution.
 *
 * Round trips: 1 (the batch's persons read without locks). The events are then applied in memory to
 * what was read (a dry run); a batch that creates, changes, links or merges no person stops there
 * and takes no lock. Otherwise only the distinct ids whose persons it writes are locked: 1
 * (advisory locks + savepoint), 1 (lookup, rows locked), 1 (release the savepoint), then 1 to
 * create the new persons and distinct ids (if any) and 1 to update changed persons (if any); groups
 * add 1 (mappings) when the batch names group types and 1 (upsert) when it has `$groupidentify`,
 * plus 3 the first time a group type is seen. A batch with merges of stored persons adds 2.
 * Everything else is folded in memory and written once.
 *
 * The ids left unlocked keep what the unlocked read saw: their persons are neither written nor
 * locked, so the batch orders itself before any concurrent writer of those persons (its events
 * carry the person as it was before that writer's change, as they would had it committed first).
 * Busy persons therefore hold up only the batches that change them.
 *
 * Concurrency: see `lockAndLookup`.
 */

/** A lookup that keeps meeting persons deleted under it is given up after this many tries. */
const MAX_LOOKUPS = 5;

interface PersonState {
  /** The row's id; null for a person created by this batch (inserted at the end). */
  dbId: number | null;
  uuid: string;
  properties: Properties;
  isIdentified: boolean;
  createdAt: Date;
  /** Something to write for an existing person. */
  dirty: boolean;
  /** The person this one was merged into, within this batch. */
  mergedInto: PersonState | null;
  /** The batch's distinct ids that belong to this person now. */
  distinctIds: Set<string>;
}

/** Events that never create or change a person (PostHog's personless events, group identify). */
function processesPerson(event: IncomingEvent): boolean {
  return event.event !== '$groupidentify' && event.properties.$process_person_profile !== false;
}

type LinkKind = 'identify' | 'alias' | 'merge_dangerously';

/** The distinct id an event links to its own, and how; null for ordinary events. */
function linkOf(event: IncomingEvent): { other: string; kind: LinkKind } | null {
  const value = (key: string) => {
    const raw = event.properties[key];
    return typeof raw === 'string' ? raw : typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : null;
  };
  let other: string | null = null;
  let kind: LinkKind;
  switch (event.event) {
    case '$identify':
      other = value('$anon_distinct_id');
      kind = 'identify';
      break;
    case '$create_alias':
      other = value('alias');
      kind = 'alias';
      break;
    case '$merge_dangerously':
      other = value('alias');
      kind = 'merge_dangerously';
      break;
    default:
      return null;
  }
  return other === null ? null : { other, kind };
}

/** The distinct ids a batch may create, change or link: those it must lock. */
function distinctIdsOf(events: IncomingEvent[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    ids.add(event.distinctId);
    if (!processesPerson(event)) continue;
    const link = linkOf(event);
    if (link) ids.add(link.other);
  }
  return [...ids];
}

/**
 * Locks the batch's distinct ids, then reads their persons with the person rows locked.
 *
 * Why this is safe with batches running in parallel transactions:
 * - A distinct id gets a person (a row in person_distinct_ids is inserted) only under the
 *   transaction-level advisory lock of (project, distinct id). Every batch takes the locks of all
 *   its ids before reading, in one sorted order, so two batches seeing the same new id run one
 *   after the other: the second reads what the first committed. No duplicate mapping, no orphan
 *   person, and no deadlock between the advisory locks (same order everywhere). A batch with very
 *   many ids takes one exclusive project lock instead (see store.ts), which the others hold
 *   shared, first.
 * - Person rows are read FOR UPDATE in id order, after all advisory locks are held, so property
 *   changes of two batches sharing a person (through different distinct ids) are serialised, and
 *   row locks are also taken in one order everywhere.
 * - The one thing the advisory locks do not cover: a concurrent merge may move a distinct id of
 *   ours that its batch did not name (the merged person's other ids) and delete that person while
 *   we wait for its row lock. We then see the id with no person. Retrying the lookup while
 *   keeping the row locks already taken could deadlock (the surviving person may be locked by a
 *   batch waiting for one of ours), so we roll back to the savepoint set right after the advisory
 *   locks, which releases every row lock, and read again with a fresh snapshot.
 */
async function lockAndLookup(client: WriteTx, projectId: number, distinctIds: string[]): Promise<DistinctIdRow[]> {
  await lockDistinctIdsAndMark(client, projectId, distinctIdLockKeys(projectId, distinctIds));
  for (let attempt = 1; ; attempt++) {
    const rows = await lookupPersons(client, projectId, distinctIds);
    if (rows.every((row) => row.uuid !== null)) {
      await releaseMark(client);
      return rows;
    }
    await rollbackToMark(client);
    if (attempt >= MAX_LOOKUPS) {
      // A serialization failure: the ingestion pipeline runs the whole request again.
      throw Object.assign(new Error('persons kept being merged away during the lookup'), { code: '40001' });
    }
  }
}

/** The batch's persons in memory: read once, changed event by event, written once. */
class BatchPersons {
  /** The current person of every distinct id the batch has seen (or linked). */
  private readonly owners = new Map<string, PersonState>();
  /** Where each distinct id's row points in the database now. */
  private readonly stored = new Map<string, number>();
  /** Existing persons merged away: their rows are deleted and their distinct ids moved. */
  private readonly mergedAway: PersonState[] = [];

  constructor(
    private readonly projectId: number,
    rows: DistinctIdRow[],
  ) {
    const byId = new Map<number, PersonState>();
    for (const row of rows) {
      let person = byId.get(row.person_id);
      if (!person) {
        person = {
          dbId: row.person_id,
          uuid: row.uuid!,
          properties: row.properties ?? {},
          isIdentified: row.is_identified ?? false,
          createdAt: row.created_at!,
          dirty: false,
          mergedInto: null,
          distinctIds: new Set(),
        };
        byId.set(row.person_id, person);
      }
      this.own(row.distinct_id, person);
      this.stored.set(row.distinct_id, row.person_id);
    }
  }

  apply(event: IncomingEvent): void {
    if (!processesPerson(event)) return;
    const link = linkOf(event);
    // The link comes first: when only the other id has a person, the event's id joins it rather
    // than getting a person of its own.
    if (link) this.link(event.distinctId, link.other, link.kind, event.timestamp);
    const person = this.ensure(event.distinctId, event.timestamp);
    if (event.event === '$identify') this.identify(person);
    if (applyPropertyUpdates(person.properties, event.properties)) person.dirty = true;
    if (applyImpliedUpdates(person.properties, event)) person.dirty = true;
  }

  /** The person of `distinctId`, created when it has none. */
  private ensure(distinctId: string, timestamp: Date): PersonState {
    const existing = this.owners.get(distinctId);
    if (existing) return existing;
    const person: PersonState = {
      dbId: null,
      uuid: personUuidFor(this.projectId, distinctId),
      properties: {},
      isIdentified: false,
      createdAt: timestamp,
      dirty: true,
      mergedInto: null,
      distinctIds: new Set(),
    };
    this.own(distinctId, person);
    return person;
  }

  private own(distinctId: string, person: PersonState): void {
    this.owners.set(distinctId, person);
    person.distinctIds.add(distinctId);
  }

  private identify(person: PersonState): void {
    if (person.isIdentified) return;
    person.isIdentified = true;
    person.dirty = true;
  }

  /**
   * Links `other` to `target` (the event's own distinct id): when one of them has a person, the
   * other id joins it; when both have different persons, `other`'s is merged into `target`'s
   * unless it is already identified (PostHog refuses that merge; `$merge_dangerously` does not).
   * Placeholder ids ("anonymous", "null"…) are never linked.
   */
  private link(target: string, other: string, kind: LinkKind, timestamp: Date): void {
    if (other === target || !mayMergeOn(other) || !mayMergeOn(target)) return;
    const targetPerson = this.owners.get(target);
    const otherPerson = this.owners.get(other);
    if (!targetPerson && !otherPerson) {
      const person = this.ensure(target, timestamp);
      this.own(other, person);
      this.identify(person);
    } else if (targetPerson && !otherPerson) {
      this.own(other, targetPerson);
      this.identify(targetPerson);
    } else if (!targetPerson && otherPerson) {
      this.own(target, otherPerson);
      this.identify(otherPerson);
    } else if (targetPerson !== otherPerson) {
      if (!otherPerson!.isIdentified || kind === 'merge_dangerously') this.merge(otherPerson!, targetPerson!);
      this.identify(targetPerson!);
    } else {
      this.identify(targetPerson!);
    }
  }

  /** Merges `source` into `target`: the target's properties win, the earlier creation time stays. */
  private merge(source: PersonState, target: PersonState): void {
    const merged = { ...source.properties, ...target.properties };
    if (!jsonEqual(merged, target.properties)) target.properties = merged;
    if (source.createdAt < target.createdAt) target.createdAt = source.createdAt;
    target.dirty = true;
    source.mergedInto = target;
    for (const distinctId of source.distinctIds) this.own(distinctId, target);
    source.distinctIds.clear();
    if (source.dbId !== null) this.mergedAway.push(source);
  }

  /**
   * Writes the batch's outcome: new persons and distinct ids, merges, then updates. Answers the
   * ids of the stored persons it changed or deleted (merged away); new persons are not among them.
   */
  async write(client: WriteTx): Promise<number[]> {
    const survivors = new Set(this.owners.values());
    const created = [...survivors].filter((p) => p.dbId === null);
    // Existing persons with something to write (chosen before the new ones get their ids).
    const updates = [...survivors].filter((p) => p.dbId !== null && p.dirty);
    const newIds: NewDistinctId[] = [];
    for (const [distinctId, person] of this.owners) {
      if (this.stored.has(distinctId)) continue;
      newIds.push(
        person.dbId === null
          ? { distinct_id: distinctId, uuid: person.uuid, person_id: null }
          : { distinct_id: distinctId, uuid: null, person_id: person.dbId },
      );
    }
    if (created.length > 0 || newIds.length > 0) {
      const ids = await insertPersonsAndDistinctIds(
        client,
        this.projectId,
        created.map((p) => ({ uuid: p.uuid, properties: p.properties, is_identified: p.isIdentified, created_at: p.createdAt.toISOString() })),
        newIds,
      );
      for (const person of created) person.dbId = ids.get(person.uuid)!;
    }
    if (this.mergedAway.length > 0) {
      await mergePersons(
        client,
        this.projectId,
        this.mergedAway.map((source) => ({ source: source.dbId!, target: survivorOf(source).dbId! })),
      );
    }
    if (updates.length > 0) {
      await updatePersons(
        client,
        this.projectId,
        updates.map((p) => ({ id: p.dbId!, properties: p.properties, is_identified: p.isIdentified, created_at: p.createdAt.toISOString() })),
      );
    }
    return [...this.mergedAway.map((source) => source.dbId!), ...updates.map((p) => p.dbId!)];
  }

  /**
   * The ids (of `distinctIds` and those linked to them) whose person this batch creates, changes,
   * merges or moves: the ones to lock. The others' persons stay exactly as read.
   */
  idsToWrite(distinctIds: string[]): string[] {
    const ids = new Set<string>();
    for (const distinctId of distinctIds) if (!this.stored.has(distinctId)) ids.add(distinctId);
    for (const [distinctId, person] of this.owners) {
      if (person.dirty || person.dbId === null || this.stored.get(distinctId) !== person.dbId) ids.add(distinctId);
    }
    for (const person of this.mergedAway) for (const [distinctId, dbId] of this.stored) if (dbId === person.dbId) ids.add(distinctId);
    return [...ids];
  }

  /** distinct id → person uuid for every id of the batch; ids without a person get the uuid theirs will have. */
  result(distinctIds: string[]): Map<string, string> {
    const result = new Map<string, string>();
    for (const distinctId of distinctIds) {
      result.set(distinctId, this.owners.get(distinctId)?.uuid ?? personUuidFor(this.projectId, distinctId));
    }
    return result;
  }
}

function survivorOf(person: PersonState): PersonState {
  let current = person;
  while (current.mergedInto) current = current.mergedInto;
  return current;
}

/**
 * Resolves the persons of one batch, inside the batch's transaction, with `events` in order and
 * already de-duplicated. Answers distinct id → person uuid for every distinct id of the batch
 * (the events' own, and the ids they link), after merges.
 *
 * Call it before the transaction takes other row locks that parallel batches may also take
 * (its own locks are taken in one global order: distinct-id advisory locks, person rows by id,
 * the project's group-type lock, group rows by type and key).
 *
 * `onChanged` hears the ids of the stored persons the batch changed or merged away (not the ones
 * it created), once they are written, for the change notice of the batch's transaction.
 */
export async function resolvePersons(
  client: WriteTx,
  projectId: number,
  events: IncomingEvent[],
  onChanged?: (personIds: readonly number[]) => void,
): Promise<Map<string, string>> {
  if (events.length === 0) return new Map();
  const distinctIds = distinctIdsOf(events);
  const seen = await peekPersons(client, projectId, distinctIds);
  const dryRun = new BatchPersons(projectId, seen);
  for (const event of events) dryRun.apply(event);
  const toLock = dryRun.idsToWrite(distinctIds);
  let batch = dryRun;
  if (toLock.length > 0) {
    // The ids whose persons this batch leaves as they are keep what the unlocked read saw.
    const lockedIds = new Set(toLock);
    const untouched = seen.filter((row) => !lockedIds.has(row.distinct_id));
    batch = new BatchPersons(projectId, [...(await lockAndLookup(client, projectId, toLock)), ...untouched]);
    for (const event of events) batch.apply(event);
    const changed = await batch.write(client);
    if (changed.length > 0) onChanged?.(changed);
  }
  await resolveGroups(client, projectId, events);
  return batch.result(distinctIds);
}
