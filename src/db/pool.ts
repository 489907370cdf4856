import pg from 'pg';

// Return int8 and numeric as JS numbers: counts and ids here stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/**
 * What a read takes: the pool, a read snapshot, or a unit of work's transaction. A write takes a
 * `WriteTx` (or, for the few documented writes outside a unit, a `PoolWrite`), never this.
 */
export type ReadHandle = Pick<pg.Pool, 'query'>;

/** Every wait on the database ends; 0 turns one off (PostgreSQL's meaning). */
export interface DatabaseTimeouts {
  /** Waiting for a connection: the pool's queue when every connection is busy, and connecting. */
  connectMs: number;
  /** Any one statement (PostgreSQL `statement_timeout`). */
  statementMs: number;
  /** Waiting for a lock on a table, a row or an advisory lock (`lock_timeout`). */
  lockMs: number;
  /** A transaction left open with nothing running (`idle_in_transaction_session_timeout`). */
  idleInTransactionMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 5_000,
  statementMs: 30_000,
  lockMs: 5_000,
  idleInTransactionMs: 60_000,
};

export interface PoolOptions {
  timeouts?: DatabaseTimeouts;
  /**
   * false: queries run as unnamed statements even when they carry a name, for a transaction-mode
   * pooler that hands each transaction any server connection (PgBouncer < 1.21).
   */
  preparedStatements?: boolean;
  /** Told of a connection lost outside a query (a restart, a killed backend); the pool replaces it. */
  onConnectionError?: (error: Error) => void;
}

/** How the service's connections are named in `pg_stat_activity` (the listener's adds " listener"). */
export const APPLICATION_NAME = 'bellwether';

/** What `pg` takes for one connection: the session's timeouts travel in the start-up message. */
export function connectionConfig(connectionString: string, timeouts: DatabaseTimeouts, applicationName = APPLICATION_NAME): pg.ClientConfig {
  return {
    connectionString,
    application_name: applicationName,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    // A peer that vanished without closing (a network partition) is noticed by the kernel.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

export function createPool(connectionString: string, max = 10, options: PoolOptions = {}): pg.Pool {
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const onError = options.onConnectionError ?? (() => {});
  const pool = new pg.Pool({ ...connectionConfig(connectionString, timeouts), max, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection: the pool drops it.
  pool.on('error', onError);
  // A client taken out of the pool (a transaction between two statements) has no listener of the
  // pool's: without one of its own, a killed connection would be an unhandled 'error' event and end
  // the process. The statement in flight, or the next one, fails and the request answers 503.
  pool.on('connect', (client) => client.on('error', onError));
  if (options.preparedStatements === false) pool.on('connect', withoutStatementNames);
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
