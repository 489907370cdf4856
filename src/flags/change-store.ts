import type { WriteTx } from '../db/unit-of-work.ts';
import type { ReadHandle } from '../db/pool.ts';
import { FLAG_COLUMNS, FLAG_JOINS } from './store.ts';
import type { FlagRecord } from './record.ts';

/**
 * Bumps the project's flag change counter once and stamps the flags written (`ids`) with the new
 * count; answers it. Runs last in the writing unit of work: the counter's row lock is held from here
 * to COMMIT only, and the counts commit in order.
 */
export async function bumpFlagChanges(db: WriteTx, projectId: number, ids: readonly number[]): Promise<number> {
  const { rows } = await db.query<{ counter: number }>(
    `WITH bump AS (
       INSERT INTO flag_change_counters AS c (project_id, counter) VALUES ($1, 1)
       ON CONFLICT (project_id) DO UPDATE SET counter = c.counter + 1
       RETURNING counter),
     stamp AS (
       UPDATE feature_flags f SET change_seq = bump.counter FROM bump
        WHERE f.project_id = $1 AND f.id = ANY($2::int[]))
     SELECT counter FROM bump`,
    [projectId, ids],
  );
  return rows[0].counter;
}

/** The count of committed flag writes of each project asked about (0: never written). */
export async function flagChangeCounts(db: ReadHandle, projectIds: readonly number[]): Promise<Map<number, number>> {
  const { rows } = await db.query<{ project_id: number; counter: number }>(
    'SELECT project_id, counter FROM flag_change_counters WHERE project_id = ANY($1::int[])',
    [projectIds],
  );
  const counts = new Map<number, number>(projectIds.map((id) => [id, 0]));
  for (const row of rows) counts.set(row.project_id, row.counter);
  return counts;
}

/** The project's flags written after count `since` (deleted ones too). */
export async function flagsChangedSince(db: ReadHandle, projectId: number, since: number): Promise<FlagRecord[]> {
  const { rows } = await db.query<FlagRecord>(
    `SELECT ${FLAG_COLUMNS} FROM feature_flags f ${FLAG_JOINS} WHERE f.project_id = $1 AND f.change_seq > $2`,
    [projectId, since],
  );
  return rows;
}
