import type { Pool, PoolClient } from './pool.ts';

/**
 * Runs `work` inside one transaction: committed when it resolves, rolled back when it throws.
 * `begin` opens it (an isolation level, `SET LOCAL` settings). A connection whose rollback failed
 * (killed, restarted server) is discarded rather than handed to the next caller.
 */
export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
