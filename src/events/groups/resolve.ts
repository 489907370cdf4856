import type { WriteTx } from '../../db/unit-of-work.ts';
import type { IncomingEvent } from '../types.ts';
import { isPlainObject, setOwn } from '../persons/properties.ts';
import { insertGroupTypes, loadGroupTypeIndexes, lockGroupTypes, upsertGroups, type GroupUpsert } from './store.ts';

/** PostHog's limit: a project has at most five group types (indexes 0–4). */
export const MAX_GROUP_TYPES = 5;
const MAX_GROUP_TYPE_LENGTH = 400;

function groupTypeName(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_GROUP_TYPE_LENGTH ? value : null;
}

/** Group keys are strings; a number is taken as its text (posthog-node sends what it is given). */
function groupKeyOf(value: unknown): string | null {
  if (typeof value === 'string') return value.length > 0 ? value : null;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** The group types the batch names, in order of first appearance: `$groups` keys and `$group_type`s. */
function groupTypesOf(events: IncomingEvent[]): string[] {
  const types = new Set<string>();
  for (const event of events) {
    const groups = event.properties.$groups;
    if (isPlainObject(groups)) {
      for (const [type, key] of Object.entries(groups)) {
        const name = groupTypeName(type);
        if (name && groupKeyOf(key) !== null) types.add(name);
      }
    }
    if (event.event === '$groupidentify') {
      const name = groupTypeName(event.properties.$group_type);
      if (name) types.add(name);
    }
  }
  return [...types];
}

/**
 * The index of every type, creating mappings for the new ones at the next free indexes. Creation
 * is serialised per project by an advisory lock (taken only when the batch brings a type not seen
 * before), so two batches never give one index to two types or map one type twice. Types beyond
 * the fifth are ignored.
 */
async function ensureGroupTypes(client: WriteTx, projectId: number, types: string[]): Promise<Map<string, number>> {
  let indexes = await loadGroupTypeIndexes(client, projectId);
  if (types.every((type) => indexes.has(type)) || indexes.size >= MAX_GROUP_TYPES) return indexes;
  await lockGroupTypes(client, projectId);
  indexes = await loadGroupTypeIndexes(client, projectId);
  const taken = new Set(indexes.values());
  const added: { group_type: string; group_type_index: number }[] = [];
  for (const type of types) {
    if (indexes.has(type)) continue;
    let index = 0;
    while (taken.has(index)) index++;
    if (index >= MAX_GROUP_TYPES) break;
    taken.add(index);
    indexes.set(type, index);
    added.push({ group_type: type, group_type_index: index });
  }
  if (added.length > 0) await insertGroupTypes(client, projectId, added);
  return indexes;
}

/**
 * Group work of one batch: mappings for every group type named (`$groups`, `$groupidentify`),
 * and for `$groupidentify` events the group itself, created or with `$group_set` merged into
 * its properties (later events win). Folded in memory, written in one statement.
 */
export async function resolveGroups(client: WriteTx, projectId: number, events: IncomingEvent[]): Promise<void> {
  const types = groupTypesOf(events);
  if (types.length === 0) return;
  const indexes = await ensureGroupTypes(client, projectId, types);
  const groups = new Map<string, GroupUpsert>();
  for (const event of events) {
    if (event.event !== '$groupidentify') continue;
    const type = groupTypeName(event.properties.$group_type);
    const key = groupKeyOf(event.properties.$group_key);
    const index = type === null ? undefined : indexes.get(type);
    if (index === undefined || key === null) continue;
    const id = `${index}:${key}`;
    let group = groups.get(id);
    if (!group) {
      group = { group_type_index: index, group_key: key, group_properties: {}, created_at: event.timestamp.toISOString() };
      groups.set(id, group);
    } else if (event.timestamp.toISOString() < group.created_at) {
      group.created_at = event.timestamp.toISOString();
    }
    const set = event.properties.$group_set;
    if (isPlainObject(set)) for (const [name, value] of Object.entries(set)) setOwn(group.group_properties, name, value);
  }
  if (groups.size === 0) return;
  const sorted = [...groups.values()].sort(
    (a, b) => a.group_type_index - b.group_type_index || (a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0),
  );
  await upsertGroups(client, projectId, sorted);
}
