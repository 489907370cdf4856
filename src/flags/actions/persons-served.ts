/** How many persons a flag served lately: the confirmation before turning it off or deleting it. */
import type { Pool } from '../../db/pool.ts';
import type { FlagCache } from '../cache.ts';
import { flagById } from './read.ts';

export const SERVED_WINDOW_HOURS = 24;

export interface PersonsServed {
  persons: number;
  hours: number;
}

/**
 * Distinct persons (by person, or by distinct id for events without one) that reported a
 * `$feature_flag_called` for the flag's key in the last 24 hours. Reads the partial index on
 * those events; deleted flags are counted too (their key may have been called before deletion).
 */
export async function personsServed(pool: Pool, flagCache: FlagCache, projectId: number, id: number): Promise<PersonsServed> {
  const flag = await flagById(flagCache, projectId, id);
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(DISTINCT COALESCE(person_id::text, 'd:' || distinct_id))::int AS n
       FROM events
      WHERE project_id = $1 AND event = '$feature_flag_called' AND (properties->>'$feature_flag') = $2
        AND timestamp >= now() - make_interval(hours => $3)`,
    [projectId, flag.record.key, SERVED_WINDOW_HOURS],
  );
  return { persons: rows[0]?.n ?? 0, hours: SERVED_WINDOW_HOURS };
}
