import pg from 'pg';

// Return int8 and numeric as JS numbers: counts and ids here stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

export interface PoolOptions {
  /**
   * false: queries run as unnamed statements even when they carry a name, for a transaction-mode
   * pooler that hands each transaction any server connection (PgBouncer < 1.21).
   */
  preparedStatements?: boolean;
}

export function createPool(connectionString: string, max = 10, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  if (options.preparedStatements === false) pool.on('connect', withoutStatementNames);
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

/** Drops `name` from the query configs this client runs (pool.query runs on a pool client too). */
function withoutStatementNames(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const unnamed = (...args: unknown[]) => {
    const [config] = args;
    const plain = config !== null && typeof config === 'object' && !('submit' in config);
    if (plain && 'name' in config) args[0] = { ...config, name: undefined };
    return query(...args);
  };
  client.query = unnamed as typeof client.query;
}
