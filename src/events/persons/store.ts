import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { Properties } from './properties.ts';

/**
 * The SQL of person resolution (the write side). Every function runs on the caller's client,
 * inside the ingestion batch's transaction.
 */

const SAVEPOINT = 'bellwether_resolve_persons';
// The project-level lock, in the two-integer advisory key space (distinct ids use the 64-bit one).
const PROJECT_PERSONS_LOCK = 727_003;

/**
 * Beyond this many distinct ids a batch locks the project's persons as a whole instead of id by
 * id: every advisory lock takes a slot in PostgreSQL's shared lock table (max_locks_per_transaction
 * × max_connections, 6 400 by default), and a request may carry 10 000 events.
 */
export const MAX_DISTINCT_ID_LOCKS = 500;

/**
 * Takes the batch's advisory locks, then sets a savepoint, in one round trip:
 * - up to MAX_DISTINCT_ID_LOCKS ids: the project lock in shared mode, then one exclusive lock per
 *   distinct id, in the order given (the caller sorts them);
 * - more: the project lock in exclusive mode alone, which excludes every other batch of the
 *   project (large batches are rare: imports, backfills).
 * The project lock always comes first, so the two kinds never wait on each other in a cycle.
 * Only integers we computed are written into the statement, so that the savepoint can ride along
 * (a parameterised statement must travel alone).
 */
export async function lockDistinctIdsAndMark(client: WriteTx, projectId: number, keys: bigint[]): Promise<void> {
  if (!Number.isSafeInteger(projectId)) throw new Error(`not a project id: ${projectId}`);
  const project = `${PROJECT_PERSONS_LOCK}, ${projectId}`;
  if (keys.length > MAX_DISTINCT_ID_LOCKS) {
    await client.query(`SELECT pg_advisory_xact_lock(${project}); SAVEPOINT ${SAVEPOINT}`);
    return;
  }
  const list = keys.map((key) => key.toString()).join(',');
  // unnest() yields the array in order and the projection runs row by row, so the locks are
  // taken in the order given.
  await client.query(
    `SELECT pg_advisory_xact_lock_shared(${project}); ` +
      `SELECT count(pg_advisory_xact_lock(k)) FROM unnest('{${list}}'::bigint[]) AS k; ` +
      `SAVEPOINT ${SAVEPOINT}`,
  );
}

/** Undoes everything since the savepoint, row locks included; the advisory locks stay. */
export async function rollbackToMark(client: WriteTx): Promise<void> {
  await client.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
}

export async function releaseMark(client: WriteTx): Promise<void> {
  await client.query(`RELEASE SAVEPOINT ${SAVEPOINT}`);
}

export interface DistinctIdRow {
  distinct_id: string;
  person_id: number;
  /** Null when the person was deleted (merged away) after this statement's snapshot. */
  uuid: string | null;
  properties: Properties | null;
  is_identified: boolean | null;
  created_at: Date | null;
}

/**
 * The persons of these distinct ids, each person row locked FOR UPDATE in id order (so that two
 * batches touching the same persons lock them in the same order). A distinct id whose person
 * was deleted by a concurrent merge while we waited for its lock comes back with a null uuid.
 */
export async function lookupPersons(client: ReadHandle, projectId: number, distinctIds: string[]): Promise<DistinctIdRow[]> {
  const { rows } = await client.query<DistinctIdRow>(
    `WITH d AS (
       SELECT distinct_id, person_id FROM person_distinct_ids
        WHERE project_id = $1 AND distinct_id = ANY($2::text[])
     ), p AS MATERIALIZED (
       SELECT id, uuid, properties, is_identified, created_at FROM persons
        WHERE id IN (SELECT person_id FROM d)
        ORDER BY id
          FOR UPDATE
     )
     SELECT d.distinct_id, d.person_id, p.uuid, p.properties, p.is_identified, p.created_at
       FROM d LEFT JOIN p ON p.id = d.person_id`,
    [projectId, distinctIds],
  );
  return rows;
}

/**
 * The persons of these distinct ids as this statement's snapshot sees them, nothing locked: what a
 * batch reads first, to find the ids it will not change (they need no lock). `distinctIds` holds
 * each id once. Each id is looked up through the keys (the lateral subquery, kept apart by
 * OFFSET 0): joined as a whole, a project of a few thousand persons had both tables scanned and
 * hashed for every batch.
 */
export async function peekPersons(client: ReadHandle, projectId: number, distinctIds: string[]): Promise<DistinctIdRow[]> {
  const { rows } = await client.query<DistinctIdRow>(
    `SELECT d.distinct_id, d.person_id, p.uuid, p.properties, p.is_identified, p.created_at
       FROM unnest($2::text[]) AS asked(distinct_id)
      CROSS JOIN LATERAL (
        SELECT distinct_id, person_id FROM person_distinct_ids
         WHERE project_id = $1 AND distinct_id = asked.distinct_id OFFSET 0
      ) d
       JOIN persons p ON p.id = d.person_id`,
    [projectId, distinctIds],
  );
  return rows;
}

export interface NewPerson {
  uuid: string;
  properties: Properties;
  is_identified: boolean;
  created_at: string;
}

export interface NewDistinctId {
  distinct_id: string;
  /** Either the uuid of a person created in the same statement… */
  uuid: string | null;
  /** …or the id of an existing person. */
  person_id: number | null;
}

/**
 * Creates `persons` and attaches `distinctIds` (to the new persons by uuid, to existing ones by
 * id) in one statement. Answers the new persons' ids by uuid.
 */
export async function insertPersonsAndDistinctIds(
  client: WriteTx,
  projectId: number,
  persons: NewPerson[],
  distinctIds: NewDistinctId[],
): Promise<Map<string, number>> {
  const { rows } = await client.query<{ id: number; uuid: string }>(
    `WITH new_persons AS (
       INSERT INTO persons (uuid, project_id, properties, is_identified, created_at, version)
       SELECT n.uuid, $1, n.properties, n.is_identified, n.created_at, 0
         FROM jsonb_to_recordset($2::jsonb) AS n(uuid uuid, properties jsonb, is_identified boolean, created_at timestamptz)
       RETURNING id, uuid
     ), new_ids AS (
       INSERT INTO person_distinct_ids (project_id, distinct_id, person_id)
       SELECT $1, d.distinct_id, COALESCE(n.id, d.person_id)
         FROM jsonb_to_recordset($3::jsonb) AS d(distinct_id text, uuid uuid, person_id bigint, ord integer)
         LEFT JOIN new_persons n ON n.uuid = d.uuid
        ORDER BY d.ord
     )
     SELECT id, uuid FROM new_persons`,
    [projectId, JSON.stringify(persons), JSON.stringify(distinctIds.map((d, ord) => ({ ...d, ord })))],
  );
  return new Map(rows.map((row) => [row.uuid, row.id]));
}

/**
 * Merges: every distinct id of each source person moves to its target (the ones outside the
 * batch too), then the sources are deleted. The sources are locked by the lookup.
 */
export async function mergePersons(client: WriteTx, projectId: number, merges: { source: number; target: number }[]): Promise<void> {
  await client.query(
    `UPDATE person_distinct_ids d SET person_id = m.target
       FROM jsonb_to_recordset($2::jsonb) AS m(source bigint, target bigint)
      WHERE d.project_id = $1 AND d.person_id = m.source`,
    [projectId, JSON.stringify(merges)],
  );
  await client.query('DELETE FROM persons WHERE project_id = $1 AND id = ANY($2::bigint[])', [projectId, merges.map((m) => m.source)]);
}

export interface PersonUpdate {
  id: number;
  properties: Properties;
  is_identified: boolean;
  created_at: string;
}

/**
 * Writes the folded state of existing (locked) persons in one statement, bumping their version.
 * The ids also come as an array so the persons are found through their key (the planner takes a
 * record set for 100 rows and would scan the table).
 */
export async function updatePersons(client: WriteTx, projectId: number, updates: PersonUpdate[]): Promise<void> {
  await client.query(
    `UPDATE persons p
        SET properties = u.properties, is_identified = u.is_identified, created_at = u.created_at, version = p.version + 1
       FROM jsonb_to_recordset($2::jsonb) AS u(id bigint, properties jsonb, is_identified boolean, created_at timestamptz)
      WHERE p.project_id = $1 AND p.id = u.id AND p.id = ANY($3::bigint[])`,
    [projectId, JSON.stringify(updates), updates.map((u) => u.id)],
  );
}
