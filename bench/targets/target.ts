/** The four flag operations measured on every server. */
export const OPERATIONS = ['create', 'retrieve', 'list', 'patch'] as const;
export type Operation = (typeof OPERATIONS)[number];

export type Method = 'GET' | 'POST' | 'PATCH';

/** One HTTP request of a load run. */
export interface RequestShape {
  path: string;
  /** A Buffer is sent as is (pre-built gzip bodies). */
  body?: string | Buffer;
}

/**
 * How to load one operation: a fixed method and a generator called for every request, so that
 * creates get unique keys and patches can walk the seeded flags.
 */
export interface OperationPlan {
  method: Method;
  /** Sent with every request of the plan, over the target's (e.g. `content-encoding: gzip`). */
  headers?: Record<string, string>;
  next(): RequestShape;
  /** Checks one answer before the load (shape, page size); returns a problem or null. */
  check?(body: unknown): string | null;
  /**
   * Checked on every 2xx answer of the load (the raw text, so keep it cheap): a problem makes the
   * answer count as failed, e.g. flags evaluated without the database (`errorsWhileComputingFlags`).
   */
  rejectBody?(body: string): string | null;
}

/** A running server with its flags API, ready to be seeded and measured. */
export interface Target {
  name: string;
  baseUrl: string;
  /** The server's process and database, to tell its CPU time from other work's. */
  pid: number;
  databaseName: string;
  /** Sent with every request (authentication, content type). */
  headers: Record<string, string>;
  /** Facts about the setup worth keeping with the results (versions, pool sizes). */
  notes: Record<string, string | number | boolean>;
  /** Creates `count` flags; the plans below use them. */
  seed(count: number): Promise<void>;
  plan(operation: Operation): OperationPlan;
  /** The last lines the server wrote, for error reports. */
  output(): string;
  /** Stops the server and drops its database; safe to call twice. */
  stop(): Promise<void>;
}
