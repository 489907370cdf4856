import type { Pool, PoolClient } from './pool.ts';

export class ProbeTimeout extends Error {
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
  }
}

/**
 * `SELECT 1` through the pool, answered within `withinMs` or failed: a wait for a free connection
 * counts too (a pool that every request holds cannot serve). The statement's own server-side
 * timeout ends it on the database as well. A connection handed over after the deadline goes back.
 */
export async function probeDatabase(pool: Pool, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout(withinMs)), withinMs);
  });
  const acquiring = pool.connect();
  let client: PoolClient;
  try {
    client = await Promise.race([acquiring, expired]);
  } catch (error) {
    clearTimeout(timer);
    acquiring.then((late) => late.release(), () => {});
    throw error;
  }
  let broken: Error | undefined;
  try {
    const left = Math.max(1, deadline - Date.now());
    await Promise.race([client.query(`SET statement_timeout = ${left}; SELECT 1; RESET statement_timeout`), expired]);
  } catch (error) {
    // A statement still running (or a dead connection) must not go back to the pool.
    broken = error as Error;
    throw error;
  } finally {
    clearTimeout(timer);
    client.release(broken);
  }
}
