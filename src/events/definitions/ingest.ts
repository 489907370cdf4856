import type { WriteTx } from '../../db/unit-of-work.ts';
import type { IncomingEvent } from '../types.ts';
import {
  groupTypeIndexes,
  insertEventProperties,
  transactionStatuses,
  upsertEventDefinitions,
  upsertPropertyDefinitions,
  type PropertyObservation,
} from './ingest-store.ts';
import { detectPropertyType } from './property-types.ts';

const HOUR_MS = 3_600_000;
/** Longer event or property names are not recorded (PostHog: 200). */
export const MAX_NAME_LENGTH = 200;
/** An event with more properties records its definition but none of its properties. */
export const MAX_PROPERTIES_PER_EVENT = 10_000;
const DEFAULT_MAX_ENTRIES = 200_000;

/** Keys of `properties` that are instructions, not event properties. */
const SPECIAL_KEYS = new Set(['$set', '$set_once', '$unset', '$group_0', '$group_1', '$group_2', '$group_3', '$group_4', '$groups', 'token']);
const SKIPPED_EVENTS = new Set(['$$plugin_metrics']);

/** Separator of cache-key parts: names never contain NUL (it is replaced before use). */
const SEP = '\u0000';

export interface DefinitionsSeenOptions {
  /** Bound on remembered entries (all projects together); the oldest go first. Default 200 000. */
  maxEntries?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * What this process already wrote to the definition tables during the current hour, per project:
 * a batch whose every event name, property and event–property pair is in here costs no write.
 * Everything is forgotten when the hour turns (so last_seen_at moves on hourly), and the oldest
 * entries go first when the bound is reached. One instance serves the whole process.
 *
 * Entries are written inside the caller's transaction, which may still roll back (the pipeline
 * retries a batch after a deadlock, for instance). So each entry starts out *pending* on the id
 * of the transaction that wrote it and does not count as seen; the next call asks PostgreSQL
 * (one small query) whether those transactions committed, confirms the entries of committed
 * ones and drops those of aborted ones. A pending entry of a transaction still in progress is
 * written again, which is harmless (the upserts are idempotent).
 */
export class DefinitionsSeen {
  private readonly maxEntries: number;
  private readonly now: () => number;
  private hourStart = -1;
  /** key → for property definitions, whether the written row had a type; true otherwise. */
  private readonly entries = new Map<string, boolean>();
  /** Entries whose writing transaction is not known to have committed: key → txid. */
  private readonly pendingTx = new Map<string, string>();
  /** txid → the keys it wrote. */
  private readonly pendingKeys = new Map<string, string[]>();
  /** `${projectId}${SEP}${groupType}` → group_type_index (mappings never change). */
  private readonly groupTypes = new Map<string, number>();

  constructor(options: DefinitionsSeenOptions = {}) {
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MAX_ENTRIES);
    this.now = options.now ?? Date.now;
  }

  /** The start of the current hour; entries of an earlier hour are dropped on the way. */
  currentHour(): Date {
    const start = Math.floor(this.now() / HOUR_MS) * HOUR_MS;
    if (start !== this.hourStart) {
      this.entries.clear();
      this.pendingTx.clear();
      this.pendingKeys.clear();
      this.groupTypes.clear();
      this.hourStart = start;
    }
    return new Date(start);
  }

  /** Confirmed entries (pending ones are not counted). */
  get size(): number {
    return this.entries.size - this.pendingTx.size;
  }

  /** Transactions whose entries wait for confirmation. */
  pendingTransactions(): string[] {
    return [...this.pendingKeys.keys()];
  }

  /** Confirms (committed) or drops (anything else) the entries each transaction wrote. */
  settle(txid: string, committed: boolean): void {
    for (const key of this.pendingKeys.get(txid) ?? []) {
      if (this.pendingTx.get(key) !== txid) continue;
      this.pendingTx.delete(key);
      if (!committed) this.entries.delete(key);
    }
    this.pendingKeys.delete(txid);
  }

  /** @internal What was written for `key` this hour, by a committed transaction; undefined if nothing. */
  get(key: string): boolean | undefined {
    if (this.pendingTx.has(key)) return undefined;
    return this.entries.get(key);
  }

  /** @internal Notes `key` as written by transaction `txid` (pending until settled). */
  set(key: string, value: boolean, txid: string): void {
    if (this.entries.has(key)) this.entries.delete(key);
    else if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.pendingTx.delete(oldest);
    }
    this.entries.set(key, value);
    this.pendingTx.set(key, txid);
    const keys = this.pendingKeys.get(txid);
    if (keys) keys.push(key);
    else this.pendingKeys.set(txid, [key]);
  }

  /** @internal */
  groupTypeIndex(projectId: number, groupType: string): number | undefined {
    return this.groupTypes.get(`${projectId}${SEP}${groupType}`);
  }

  /** @internal */
  setGroupTypeIndex(projectId: number, groupType: string, index: number): void {
    if (this.groupTypes.size >= this.maxEntries) this.groupTypes.clear();
    this.groupTypes.set(`${projectId}${SEP}${groupType}`, index);
  }

  /** Forgets everything recorded for the project (its next batch writes everything again). */
  forget(projectId: number): void {
    const prefix = `${projectId}${SEP}`;
    for (const key of this.entries.keys()) {
      if (key.startsWith(prefix)) {
        this.entries.delete(key);
        this.pendingTx.delete(key);
      }
    }
    for (const key of this.groupTypes.keys()) if (key.startsWith(prefix)) this.groupTypes.delete(key);
  }
}

const cleanName = (name: string): string => (name.includes(SEP) ? name.replace(/\u0000/g, '\uFFFD') : name);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A recordable name, or null (empty, too long). */
function usableName(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_NAME_LENGTH) return null;
  return cleanName(raw);
}

interface PendingProperty extends PropertyObservation {
  key: string;
  groupType: string | null;
}

/** What one batch has to write: only what `seen` does not hold yet. */
class BatchPlan {
  readonly eventNames = new Map<string, string>();
  readonly pairs = new Map<string, [string, string]>();
  readonly properties = new Map<string, PendingProperty>();
  private readonly settled = new Map<string, Set<string>>();

  constructor(
    private readonly projectId: number,
    private readonly seen: DefinitionsSeen,
  ) {}

  event(name: string): void {
    const key = `${this.projectId}${SEP}e${SEP}${name}`;
    if (!this.eventNames.has(key) && this.seen.get(key) === undefined) this.eventNames.set(key, name);
  }

  pair(event: string, property: string): void {
    const key = `${this.projectId}${SEP}ep${SEP}${event}${SEP}${property}`;
    if (!this.pairs.has(key) && this.seen.get(key) === undefined) this.pairs.set(key, [event, property]);
  }

  /**
   * Group properties are keyed by group type name, so the cache answers without the mapping.
   * Answers true when nothing later in the batch can change what is written for this property.
   */
  property(type: 1 | 2 | 3, groupType: string | null, name: string, value: unknown): boolean {
    const key = `${this.projectId}${SEP}p${type}${SEP}${groupType ?? ''}${SEP}${name}`;
    const written = this.seen.get(key);
    if (written === true) return true;
    const propertyType = detectPropertyType(name, value);
    // Written untyped, and still nothing better to say.
    if (written === false && propertyType === null) return false;
    const pending = this.properties.get(key);
    if (pending) {
      if (pending.propertyType === null) pending.propertyType = propertyType;
      return pending.propertyType !== null;
    }
    this.properties.set(key, { key, type, groupType, groupTypeIndex: null, name, propertyType });
    return propertyType !== null;
  }

  /** Names already settled in this batch, per event (and `$set` for person properties): skipped outright. */
  settledFor(event: string): Set<string> {
    let settled = this.settled.get(event);
    if (!settled) {
      settled = new Set();
      this.settled.set(event, settled);
    }
    return settled;
  }

  get empty(): boolean {
    return this.eventNames.size === 0 && this.pairs.size === 0 && this.properties.size === 0;
  }
}

function planEvent(plan: BatchPlan, event: IncomingEvent): void {
  if (SKIPPED_EVENTS.has(event.event)) return;
  const eventName = usableName(event.event);
  if (eventName === null) return;
  plan.event(eventName);
  const properties = isPlainObject(event.properties) ? event.properties : {};

  if (eventName === '$groupidentify') {
    // Group properties only: the group's type and key are not event properties worth listing.
    const groupType = properties.$group_type;
    const groupSet = properties.$group_set;
    if (typeof groupType !== 'string' || !isPlainObject(groupSet)) return;
    for (const raw of Object.keys(groupSet)) {
      const name = usableName(raw);
      if (name !== null) plan.property(3, groupType, name, groupSet[raw]);
    }
    return;
  }

  const keys = Object.keys(properties);
  if (keys.length <= MAX_PROPERTIES_PER_EVENT) {
    const settled = plan.settledFor(eventName);
    for (const raw of keys) {
      if (settled.has(raw) || SPECIAL_KEYS.has(raw)) continue;
      const name = usableName(raw);
      if (name === null) continue;
      plan.pair(eventName, name);
      if (plan.property(1, null, name, properties[raw])) settled.add(raw);
    }
  }
  for (const setKey of ['$set', '$set_once']) {
    const set = properties[setKey];
    if (!isPlainObject(set)) continue;
    const setKeys = Object.keys(set);
    if (setKeys.length > MAX_PROPERTIES_PER_EVENT) continue;
    // Keyed apart from every event name (which cannot contain NUL).
    const settled = plan.settledFor(SEP);
    for (const raw of setKeys) {
      if (settled.has(raw) || SPECIAL_KEYS.has(raw)) continue;
      const name = usableName(raw);
      if (name !== null && plan.property(2, null, name, set[raw])) settled.add(raw);
    }
  }
}

/** Fills in group_type_index; group properties of a type the project does not know are dropped. */
async function resolveGroupTypes(client: WriteTx, projectId: number, plan: BatchPlan, seen: DefinitionsSeen): Promise<void> {
  const unknown = new Set<string>();
  for (const p of plan.properties.values()) {
    if (p.groupType !== null && seen.groupTypeIndex(projectId, p.groupType) === undefined) unknown.add(p.groupType);
  }
  if (unknown.size > 0) {
    const found = await groupTypeIndexes(client, projectId, [...unknown]);
    for (const [groupType, index] of found) seen.setGroupTypeIndex(projectId, groupType, index);
  }
  for (const [key, p] of plan.properties) {
    if (p.groupType === null) continue;
    const index = seen.groupTypeIndex(projectId, p.groupType);
    if (index === undefined) plan.properties.delete(key);
    else p.groupTypeIndex = index;
  }
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function propertyOrder(a: PropertyObservation, b: PropertyObservation): number {
  return a.type - b.type || (a.groupTypeIndex ?? -1) - (b.groupTypeIndex ?? -1) || byString(a.name, b.name);
}

/**
 * Records the batch's event definitions, event–property pairs and property definitions (event
 * properties, person properties from `$set`/`$set_once`, group properties from
 * `$groupidentify`'s `$group_set`) with at most one statement per table, on the caller's
 * transaction. Nothing is sent when `seen` holds everything already. Rows are written in a
 * fixed order (sorted), so concurrent batches cannot deadlock on one another here.
 */
export async function recordDefinitions(client: WriteTx, projectId: number, events: IncomingEvent[], seen: DefinitionsSeen): Promise<void> {
  const hour = seen.currentHour();
  await settlePending(client, seen);
  const plan = new BatchPlan(projectId, seen);
  for (const event of events) planEvent(plan, event);
  if (plan.empty) return;
  if ([...plan.properties.values()].some((p) => p.groupType !== null)) await resolveGroupTypes(client, projectId, plan, seen);

  let txid = '';
  if (plan.eventNames.size > 0) {
    txid = await upsertEventDefinitions(client, projectId, [...plan.eventNames.values()].sort(byString), hour);
  }
  if (plan.properties.size > 0) {
    txid = await upsertPropertyDefinitions(client, projectId, [...plan.properties.values()].sort(propertyOrder));
  }
  if (plan.pairs.size > 0) {
    const pairs = [...plan.pairs.values()].sort((a, b) => byString(a[0], b[0]) || byString(a[1], b[1]));
    txid = await insertEventProperties(client, projectId, pairs);
  }
  if (txid === '') return; // only group properties of unknown group types: nothing written

  for (const key of plan.eventNames.keys()) seen.set(key, true, txid);
  for (const key of plan.pairs.keys()) seen.set(key, true, txid);
  for (const p of plan.properties.values()) seen.set(p.key, p.propertyType !== null, txid);
}

/** Confirms or drops the entries of earlier batches by their transactions' fate (one query, when any wait). */
async function settlePending(client: WriteTx, seen: DefinitionsSeen): Promise<void> {
  const txids = seen.pendingTransactions();
  if (txids.length === 0) return;
  const statuses = await transactionStatuses(client, txids);
  for (const txid of txids) {
    const status = statuses.get(txid);
    if (status === 'in progress') continue; // still open elsewhere (or this very transaction): stays pending
    seen.settle(txid, status === 'committed');
  }
}
