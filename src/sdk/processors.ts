/**
 * Event processors the SDK area registers with ingestion (`ingestionRoutes(deps, processors)`).
 * They run inside the batch's unit of work and act once it commits.
 */
import type { EventProcessor } from '../events/pipeline.ts';
import type { IncomingEvent } from '../events/types.ts';
import type { UnitOfWork, WriteTx } from '../db/unit-of-work.ts';
import type { ChangeBus } from '../kernel/changes/bus.ts';
import type { LastCalledWriter } from './last-called.ts';

export const FLAG_CALLED_EVENT = '$feature_flag_called';

/** The latest `$feature_flag_called` per flag key in the batch. */
export function latestCalls(events: readonly IncomingEvent[]): { key: string; at: Date }[] {
  const latest = new Map<string, Date>();
  for (const event of events) {
    if (event.event !== FLAG_CALLED_EVENT) continue;
    const key = event.properties.$feature_flag;
    if (typeof key !== 'string' || key === '') continue;
    const seen = latest.get(key);
    if (!seen || seen < event.timestamp) latest.set(key, event.timestamp);
  }
  return [...latest].map(([key, at]) => ({ key, at })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * `$feature_flag_called` → the flag's `last_called_at` (the latest call time, as PostHog keeps it):
 * the latest call per key of each committed batch goes to the writer, which stores them in batches (sdk/last-called.ts).
 * Nothing is written on the batch's transaction.
 */
export function lastCalledProcessor(writer: LastCalledWriter): EventProcessor {
  return {
    async process(_client: WriteTx, projectId: number, events: IncomingEvent[], unit: UnitOfWork) {
      const calls = latestCalls(events);
      if (calls.length > 0) unit.afterCommit(() => writer.record(projectId, calls));
    },
  };
}

/** The group types a batch names (`$groups` keys, `$group_type` of `$groupidentify`). */
function groupTypesNamed(events: readonly IncomingEvent[]): Set<string> {
  const types = new Set<string>();
  for (const event of events) {
    const groups = event.properties.$groups;
    if (groups && typeof groups === 'object' && !Array.isArray(groups)) for (const type of Object.keys(groups)) types.add(type);
    if (event.event === '$groupidentify' && typeof event.properties.$group_type === 'string') types.add(event.properties.$group_type);
  }
  return types;
}

/** Names beyond this many per project are not tracked (ingestion keeps five types; the rest is noise). */
const MAX_TRACKED_NAMES = 64;

/**
 * Ingestion creates a project's group types as events name them. The first time this process sees
 * a batch name a type (per project), the mapping may have grown: a `group_types` notice tells the
 * other processes and, after the commit, this process's SDK cache (hearing it from the unit of work)
 * reads the mapping again. No query
 * is made here (a pool query while the batch holds its connection could starve the pool), so a
 * type already known elsewhere costs one notice per process, once.
 */
export function groupTypesProcessor(bus: ChangeBus): EventProcessor {
  const seen = new Map<number, Set<string>>();
  return {
    async process(_client: WriteTx, projectId: number, events: IncomingEvent[], unit: UnitOfWork) {
      const named = groupTypesNamed(events);
      if (named.size === 0) return;
      const known = seen.get(projectId) ?? new Set<string>();
      if (known.size >= MAX_TRACKED_NAMES) return;
      const unseen = [...named].filter((type) => !known.has(type));
      if (unseen.length === 0) return;
      unit.afterCommit(() => {
        seen.set(projectId, known);
        for (const type of unseen) if (known.size < MAX_TRACKED_NAMES) known.add(type);
      });
      await bus.publish(unit, { kind: 'group_types', projectId });
    },
  };
}
