import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';

/**
 * Runs the write and answers the id of the transaction it ran in, in the same round trip, so
 * the cache can later ask whether that transaction committed.
 */
async function writtenBy(db: ReadHandle, write: string, params: unknown[]): Promise<string> {
  const { rows } = await db.query<{ txid: string }>(`WITH w AS (${write}) SELECT txid_current()::text AS txid`, params);
  return rows[0].txid;
}

/** committed, aborted or in progress per transaction id; absent when PostgreSQL no longer knows. */
export async function transactionStatuses(db: ReadHandle, txids: string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ txid: string; status: string | null }>(
    'SELECT t AS txid, txid_status(t::bigint) AS status FROM unnest($1::text[]) AS t',
    [txids],
  );
  return new Map(rows.filter((r) => r.status !== null).map((r) => [r.txid, r.status as string]));
}

/**
 * Upserts the definitions of these names, first seen or seen again at `hour`. A stored
 * last_seen_at only moves forward; a NULL one (a definition made through the API) is filled, and
 * so is a NULL created_at. Names arrive sorted, so concurrent batches lock rows in one order.
 */
export async function upsertEventDefinitions(db: WriteTx, projectId: number, names: string[], hour: Date): Promise<string> {
  return writtenBy(
    db,
    `INSERT INTO event_definitions AS d (project_id, name, created_at, last_seen_at)
     SELECT $1, n, $3, $3 FROM unnest($2::text[]) AS n
     ON CONFLICT (project_id, name) DO UPDATE
        SET last_seen_at = GREATEST(d.last_seen_at, EXCLUDED.last_seen_at),
            created_at = COALESCE(d.created_at, EXCLUDED.created_at)
      WHERE d.last_seen_at IS NULL OR d.last_seen_at < EXCLUDED.last_seen_at OR d.created_at IS NULL`,
    [projectId, names, hour],
  );
}

export interface PropertyObservation {
  type: 1 | 2 | 3;
  groupTypeIndex: number | null;
  name: string;
  propertyType: string | null;
}

/** Inserts unknown property definitions; a known one only gains a type when it had none. */
export async function upsertPropertyDefinitions(db: WriteTx, projectId: number, rows: PropertyObservation[]): Promise<string> {
  return writtenBy(
    db,
    `INSERT INTO property_definitions AS p (project_id, type, group_type_index, name, property_type, is_numerical)
     SELECT $1, t, g, n, pt, COALESCE(pt = 'Numeric', false)
       FROM unnest($2::smallint[], $3::smallint[], $4::text[], $5::text[]) AS u(t, g, n, pt)
     ON CONFLICT (project_id, type, (COALESCE(group_type_index, -1)), name) DO UPDATE
        SET property_type = EXCLUDED.property_type, is_numerical = EXCLUDED.is_numerical
      WHERE p.property_type IS NULL AND EXCLUDED.property_type IS NOT NULL`,
    [projectId, rows.map((r) => r.type), rows.map((r) => r.groupTypeIndex), rows.map((r) => r.name), rows.map((r) => r.propertyType)],
  );
}

export async function insertEventProperties(db: WriteTx, projectId: number, pairs: [string, string][]): Promise<string> {
  return writtenBy(
    db,
    `INSERT INTO event_properties (project_id, event, property)
     SELECT $1, e, p FROM unnest($2::text[], $3::text[]) AS u(e, p)
     ON CONFLICT DO NOTHING`,
    [projectId, pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
}

/** The indexes of these group types in the project; unknown types are absent. */
export async function groupTypeIndexes(db: ReadHandle, projectId: number, groupTypes: string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ group_type: string; group_type_index: number }>(
    'SELECT group_type, group_type_index FROM group_type_mappings WHERE project_id = $1 AND group_type = ANY($2::text[])',
    [projectId, groupTypes],
  );
  return new Map(rows.map((r) => [r.group_type, r.group_type_index]));
}
