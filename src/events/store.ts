import type { ReadHandle } from '../db/pool.ts';
import { INSERT_CHUNK_ROWS } from './ingestion/limits.ts';
import type { IncomingEvent } from './types.ts';
import type { WriteTx } from '../db/unit-of-work.ts';

/** Which of these event uuids the project already holds. */
export async function findStoredUuids(db: ReadHandle, projectId: number, uuids: string[]): Promise<Set<string>> {
  if (uuids.length === 0) return new Set();
  const { rows } = await db.query<{ uuid: string }>(
    'SELECT uuid::text AS uuid FROM events WHERE project_id = $1 AND uuid = ANY($2::uuid[])',
    [projectId, uuids],
  );
  return new Set(rows.map((r) => r.uuid));
}

/** One row as the insert reads it from its JSON parameter (short keys: less text to send and parse). */
interface EventRow {
  u: string;
  e: string;
  d: string;
  p: string | null;
  pr: Record<string, unknown>;
  t: string;
}

// The rows travel as one JSON array: PostgreSQL parses it once, and properties go into jsonb
// without a second round of text escaping (as a text[] array parameter would need).
const INSERT_EVENTS = `
  INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
  SELECT $1, r.u, r.e, r.d, r.p, r.pr, r.t
    FROM json_to_recordset($2::json) AS r(u uuid, e text, d text, p uuid, pr jsonb, t timestamptz)
  ON CONFLICT (project_id, uuid) DO NOTHING`;

/**
 * Inserts the events (one statement per chunk of at most INSERT_CHUNK_ROWS rows) with their
 * person; an event whose uuid is already stored is skipped. Answers how many rows were inserted.
 */
export async function insertEvents(
  db: WriteTx,
  projectId: number,
  events: IncomingEvent[],
  persons: ReadonlyMap<string, string>,
): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < events.length; start += INSERT_CHUNK_ROWS) {
    const rows: EventRow[] = events.slice(start, start + INSERT_CHUNK_ROWS).map((event) => ({
      u: event.uuid,
      e: event.event,
      d: event.distinctId,
      p: persons.get(event.distinctId) ?? null,
      pr: event.properties,
      t: event.timestamp.toISOString(),
    }));
    const result = await db.query(INSERT_EVENTS, [projectId, JSON.stringify(rows)]);
    inserted += result.rowCount ?? 0;
  }
  return inserted;
}
