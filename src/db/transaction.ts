import type { QueryResult } from 'pg';
import type { Pool, PoolClient, ReadHandle } from './pool.ts';

/**
 * A transaction's connection that sends the opening statement with the first statement of the
 * work: in the same message when that one is plain text without parameters and the opening is one
 * statement (the simple-query protocol runs both, one round trip), else just before it. A
 * transaction whose work sends nothing opens nothing.
 */
class OpenedOnFirstStatement {
  private pending: string | null;
  opened = false;

  constructor(
    private readonly client: PoolClient,
    opening: string,
  ) {
    this.pending = opening;
  }

  query = ((...args: unknown[]) => {
    const client = this.client as unknown as { query: (...a: unknown[]) => Promise<unknown> };
    const opening = this.pending;
    if (opening === null) return client.query(...args);
    this.pending = null;
    this.opened = true;
    const [first] = args;
    if (args.length === 1 && typeof first === 'string' && !opening.includes(';')) {
      // The opening's result comes first; the caller gets what its own text alone would answer.
      return client.query(`${opening}; ${first}`).then((results) => {
        const rest = (results as QueryResult[]).slice(1);
        return rest.length === 1 ? rest[0] : rest;
      });
    }
    return client.query(opening).then(() => client.query(...args));
  }) as ReadHandle['query'];
}

/**
 * Runs `work` inside one transaction: committed when it resolves, rolled back when it throws.
 * `begin` opens it (an isolation level, `SET LOCAL` settings), sent with the work's first statement.
 * A connection whose rollback failed (killed, restarted server) is discarded rather than handed to
 * the next caller.
 */
export async function withTransaction<T>(pool: Pool, work: (client: ReadHandle) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  const transaction = new OpenedOnFirstStatement(client, begin);
  let broken: Error | undefined;
  try {
    const result = await work(transaction);
    if (transaction.opened) await client.query('COMMIT');
    return result;
  } catch (error) {
    if (transaction.opened) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
