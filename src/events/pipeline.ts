import type { Kernel } from '../kernel/deps.ts';
import type { Change } from '../kernel/changes/bus.ts';
import type { ReadHandle } from '../db/pool.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { UnitOfWork, WriteTx } from '../db/unit-of-work.ts';
import { ExtensionPoint } from '../kernel/extensions.ts';
import { ingestedEvents } from '../kernel/metrics/metrics.ts';
import { recordDefinitions, type DefinitionsSeen } from './definitions/ingest.ts';
import { resolvePersons } from './persons/resolve.ts';
import { findStoredUuids, insertEvents } from './store.ts';
import type { IncomingEvent } from './types.ts';

/**
 * Work that follows the stored events inside the same transaction ($feature_flag_called → the
 * flag's last_called_at, survey responses, …). It sees only fresh events: never a retried
 * duplicate. Throwing rolls the whole request back (the client is told to retry). What it does
 * once the batch has committed it adds to the batch's unit of work (`unit.afterCommit`, or a change
 * published on it); a retried batch runs it again in a fresh unit.
 */
export interface EventProcessor {
  /** `persons`: each distinct id of the batch → the uuid of its person (what the stored events carry as person_id). */
  process(client: WriteTx, projectId: number, events: IncomingEvent[], unit: UnitOfWork, persons: ReadonlyMap<string, string>): Promise<void>;
}

/** Where other areas add their processors (`app.extensions.contribute`); they run in the order the areas were registered. */
export const EVENT_PROCESSORS = new ExtensionPoint<EventProcessor>('event processors');

export interface IngestResult {
  /** Events written now. */
  stored: number;
  /** Events already stored (a retried request) or repeated within the request. */
  duplicates: number;
}

/** What one ingestion endpoint keeps between requests: its definitions cache and its processors. */
export interface IngestSetup {
  definitionsSeen: DefinitionsSeen;
  processors: readonly EventProcessor[];
}

/** The events whose uuid appears for the first time: in the batch (first wins) and in the store. */
async function freshEvents(client: ReadHandle, projectId: number, events: IncomingEvent[]): Promise<IncomingEvent[]> {
  const firsts = new Map<string, IncomingEvent>();
  for (const event of events) if (!firsts.has(event.uuid)) firsts.set(event.uuid, event);
  const stored = await findStoredUuids(client, projectId, [...firsts.keys()]);
  if (stored.size === 0) return firsts.size === events.length ? events : [...firsts.values()];
  return [...firsts.values()].filter((event) => !stored.has(event.uuid));
}

/** Past this many changed persons a batch's notice names none (any person of the project): a notice holds 8 000 bytes at most. */
const MAX_NOTICE_PERSONS = 500;

/** The notice of stored persons a batch changed (the SDK's person cache drops them; sdk/person-cache.ts). */
function personsChange(projectId: number, ids: readonly number[]): Change {
  return ids.length > MAX_NOTICE_PERSONS ? { kind: 'persons', projectId } : { kind: 'persons', projectId, ids: [...new Set(ids)] };
}

async function ingestIn(deps: Kernel, unit: UnitOfWork, projectId: number, events: IncomingEvent[], setup: IngestSetup): Promise<IngestResult> {
  const { client } = unit;
  const fresh = await freshEvents(client, projectId, events);
  if (fresh.length === 0) return { stored: 0, duplicates: events.length };
  let changed: readonly number[] = [];
  const persons = await resolvePersons(client, projectId, fresh, (ids) => (changed = ids));
  if (changed.length > 0) await deps.bus.publish(unit, personsChange(projectId, changed));
  // The persons notice rides on the events' insert; whatever is published later goes at COMMIT.
  const stored = await insertEvents(client, projectId, fresh, persons, deps.bus.takeNotices(unit));
  await recordDefinitions(client, projectId, fresh, setup.definitionsSeen);
  for (const processor of setup.processors) await processor.process(client, projectId, fresh, unit, persons);
  return { stored, duplicates: events.length - stored };
}

/**
 * Stores a request's events in ONE transaction, all or nothing, committed before this resolves:
 * duplicates dropped (so a retried batch changes nothing twice), persons resolved, events
 * inserted, definitions recorded, then the processors. A conflict with a concurrent batch (a
 * deadlock, a serialization failure, the same person inserted) runs the whole unit again. Round trips per request: BEGIN, the
 * duplicate check, the persons' and definitions' own statements, one INSERT per 1000 events (the
 * first also sends the persons notice), COMMIT.
 */
export async function ingest(
  deps: Kernel,
  projectId: number,
  events: IncomingEvent[],
  setup: IngestSetup,
): Promise<IngestResult> {
  // Two batches creating the same person at once: the loser's whole batch simply runs again.
  const retryAlso = (error: unknown) => isUniqueViolation(error);
  const counts = await deps.units.run((unit) => ingestIn(deps, unit, projectId, events, setup), { retry: true, retryAlso });
  ingestedEvents.inc({ result: 'stored' }, counts.stored);
  ingestedEvents.inc({ result: 'duplicate' }, counts.duplicates);
  return counts;
}
