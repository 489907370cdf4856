import type { ReadHandle } from '../db/pool.ts';
import { INSERT_CHUNK_ROWS } from './ingestion/limits.ts';
import type { IncomingEvent } from './types.ts';
import type { WriteTx } from '../db/unit-of-work.ts';
import { CHANGES_CHANNEL } from '../kernel/changes/bus.ts';

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

// The rows travel as one JSON array, read as jsonb: PostgreSQL parses the text once and each
// row's properties are taken from it as they are (json_to_recordset would parse them a second
// time into jsonb), and without the text escaping a text[] array parameter would need.
const INSERT_EVENTS = `
  INSERT INTO events (project_id, uuid, event, distinct_id, person_id, properties, timestamp)
  SELECT $1, r.u, r.e, r.d, r.p, r.pr, r.t
    FROM jsonb_to_recordset($2::jsonb) AS r(u uuid, e text, d text, p uuid, pr jsonb, t timestamptz)
  ON CONFLICT (project_id, uuid) DO NOTHING`;

// The same insert carrying the batch's change notices (a CTE that is not read is not run: both are counted).
// Both are named statements, parsed and planned once per connection: their plans have no choice to make.
const INSERT_EVENTS_WITH_NOTICES = `
  WITH inserted AS (${INSERT_EVENTS} RETURNING 1),
       notices AS (SELECT pg_notify($3, n) FROM unnest($4::text[]) AS n)
  SELECT (SELECT count(*)::int FROM inserted) AS inserted, (SELECT count(*)::int FROM notices) AS notices`;

/**
 * Inserts the events (one statement per chunk of at most INSERT_CHUNK_ROWS rows) with their
 * person; an event whose uuid is already stored is skipped. Answers how many rows were inserted.
 * `notices`: change notices of the transaction (`ChangeBus.takeNotices`), sent by the first
 * chunk's statement rather than one of their own.
 */
export async function insertEvents(
  db: WriteTx,
  projectId: number,
  events: IncomingEvent[],
  persons: ReadonlyMap<string, string>,
  notices: readonly string[] | null = null,
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
    const json = JSON.stringify(rows);
    if (start === 0 && notices !== null && notices.length > 0) {
      const { rows: counted } = await db.query<{ inserted: number }>({
        name: 'bellwether-events-insert-notify',
        text: INSERT_EVENTS_WITH_NOTICES,
        values: [projectId, json, CHANGES_CHANNEL, notices],
      });
      inserted += counted[0].inserted;
    } else {
      const result = await db.query({ name: 'bellwether-events-insert', text: INSERT_EVENTS, values: [projectId, json] });
      inserted += result.rowCount ?? 0;
    }
  }
  return inserted;
}
