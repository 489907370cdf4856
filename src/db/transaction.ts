import type { Pool, PoolClient } from './pool.ts';

/**
 * Runs `work` inside one transaction: committed when it resolves, rolled back when it throws.
 * `begin` opens it (an isolation level, `SET LOCAL` settings).
 */
export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
