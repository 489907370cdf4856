import type { AppDeps } from '../app.ts';
import type { PoolClient } from '../db/pool.ts';
import { withTransaction } from '../db/transaction.ts';
import { ingestedEvents } from '../platform/metrics/metrics.ts';
import { recordDefinitions, type DefinitionsSeen } from './definitions/ingest.ts';
import { resolvePersons } from './persons/resolve.ts';
import { findStoredUuids, insertEvents } from './store.ts';
import type { IncomingEvent } from './types.ts';

/**
 * Work that follows the stored events inside the same transaction ($feature_flag_called → the
 * flag's last_called_at, survey responses, …). It sees only fresh events: never a retried
 * duplicate. Throwing rolls the whole request back (the client is told to retry). It may answer a
 * function to run once the transaction has committed (to refresh this process's caches, which
 * do not hear the process's own change notices).
 */
export interface EventProcessor {
  process(client: PoolClient, projectId: number, events: IncomingEvent[]): Promise<void | AfterCommit>;
}

export type AfterCommit = () => void;

export interface IngestResult {
  /** Events written now. */
  stored: number;
  /** Events already stored (a retried request) or repeated within the request. */
  duplicates: number;
}

/** Transient conflicts between concurrent transactions: the whole request is simply run again. */
const RETRYABLE = new Set(['40001', '40P01', '23505']);
const MAX_ATTEMPTS = 3;

/** What one ingestion endpoint keeps between requests: its definitions cache and its processors. */
export interface IngestSetup {
  definitionsSeen: DefinitionsSeen;
  processors: readonly EventProcessor[];
}

/** The events whose uuid appears for the first time: in the batch (first wins) and in the store. */
async function freshEvents(client: PoolClient, projectId: number, events: IncomingEvent[]): Promise<IncomingEvent[]> {
  const firsts = new Map<string, IncomingEvent>();
  for (const event of events) if (!firsts.has(event.uuid)) firsts.set(event.uuid, event);
  const stored = await findStoredUuids(client, projectId, [...firsts.keys()]);
  if (stored.size === 0) return firsts.size === events.length ? events : [...firsts.values()];
  return [...firsts.values()].filter((event) => !stored.has(event.uuid));
}

async function ingestOnce(
  deps: AppDeps,
  projectId: number,
  events: IncomingEvent[],
  setup: IngestSetup,
): Promise<IngestResult & { committed: AfterCommit[] }> {
  return withTransaction(deps.pool, async (client) => {
    const committed: AfterCommit[] = [];
    const fresh = await freshEvents(client, projectId, events);
    if (fresh.length === 0) return { stored: 0, duplicates: events.length, committed };
    const persons = await resolvePersons(client, projectId, fresh);
    const stored = await insertEvents(client, projectId, fresh, persons);
    await recordDefinitions(client, projectId, fresh, setup.definitionsSeen);
    for (const processor of setup.processors) {
      const after = await processor.process(client, projectId, fresh);
      if (after) committed.push(after);
    }
    return { stored, duplicates: events.length - stored, committed };
  });
}

/**
 * Stores a request's events in ONE transaction, all or nothing, committed before this resolves:
 * duplicates dropped (so a retried batch changes nothing twice), persons resolved, events
 * inserted, definitions recorded, then the processors. Round trips per request: BEGIN, the
 * duplicate check, the persons' and definitions' own statements, one INSERT per 1000 events,
 * COMMIT.
 */
export async function ingest(
  deps: AppDeps,
  projectId: number,
  events: IncomingEvent[],
  setup: IngestSetup,
): Promise<IngestResult> {
  for (let attempt = 1; ; attempt++) {
    let result: Awaited<ReturnType<typeof ingestOnce>>;
    try {
      result = await ingestOnce(deps, projectId, events, setup);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= MAX_ATTEMPTS || typeof code !== 'string' || !RETRYABLE.has(code)) throw error;
      continue;
    }
    const { committed, ...counts } = result;
    ingestedEvents.inc({ result: 'stored' }, counts.stored);
    ingestedEvents.inc({ result: 'duplicate' }, counts.duplicates);
    for (const after of committed) {
      try {
        after();
      } catch {
        // The events are committed; a cache that failed to refresh must not turn that into an error.
      }
    }
    return counts;
  }
}
