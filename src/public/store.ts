import type { ReadHandle } from '../db/pool.ts';

/** The project whose public token (`phc_…`) this is, or null. */
export async function findProjectIdByToken(db: ReadHandle, token: string): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM projects WHERE api_token = $1', [token]);
  return rows[0]?.id ?? null;
}
