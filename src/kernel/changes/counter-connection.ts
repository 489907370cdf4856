import pg from 'pg';
import { APPLICATION_NAME, connectionConfig, DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../../db/pool.ts';
import { BoundedCache } from '../bounded-cache.ts';

/**
 * One connection of its own per process for the change-counter read that nearly every management
 * request waits for (counters.ts), so that the read costs no pool checkout and little encoding: the
 * statement is prepared once per connection (by name), and each read writes the Bind, Execute and
 * Sync messages kept ready per set of parameters, then takes the rows as arrays of text.
 *
 * It is a plain session on the database like any pool connection: a read sent after a moment sees
 * every transaction committed before it. Any failure (the connection lost, a statement refused)
 * ends the connection. `read` never waits for a connection: while none is open it starts opening
 * one and rejects, and the caller reads from the pool instead.
 */

const STATEMENT_NAME = 'bellwether_counters';
/** Prepared requests kept, by their parameters (one per set of projects asked for together). */
const PREPARED_REQUESTS_MAX = 256;
/**
 * A read not answered within this long (by default; the kernel passes the listener's heartbeat
 * timeout) counts the connection as dead: a connection that hangs without closing would otherwise
 * hold every request waiting for the read.
 */
const DEFAULT_READ_TIMEOUT_MS = 5_000;
/** After a failed attempt to connect, the reads go to the pool this long before the next attempt. */
const RETRY_AFTER_FAILURE_MS = 1_000;

export const COUNTERS_SQL = `SELECT 'auth' AS key, counter FROM auth_change_counter WHERE $2::boolean
           UNION ALL
           SELECT 'flags:' || project_id, counter FROM flag_change_counters WHERE project_id = ANY($1::int[])`;

/** One row of the counters: its key (`auth`, `flags:<project>`) and count. */
export type CounterRow = [key: string, counter: number];

const int16 = (value: number): Buffer => {
  const buffer = Buffer.alloc(2);
  buffer.writeInt16BE(value);
  return buffer;
};
const int32 = (value: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};
const cstring = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');

/** A frontend message of the extended query protocol: its type byte, length, body. */
function frontendMessage(type: 'P' | 'B' | 'E' | 'S', body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(type, 'latin1'), int32(body.length + 4), body]);
}

const PARSE = frontendMessage('P', Buffer.concat([cstring(STATEMENT_NAME), cstring(COUNTERS_SQL), int16(0)]));
/** Execute the unnamed portal, every row; then Sync. */
const EXECUTE_SYNC = Buffer.concat([frontendMessage('E', Buffer.concat([cstring(''), int32(0)])), frontendMessage('S', Buffer.alloc(0))]);

/** Bind + Execute + Sync for these text parameters (none null). */
export function encodeRead(values: readonly string[]): Buffer {
  const parameters = values.flatMap((value) => {
    const bytes = Buffer.from(value, 'utf8');
    return [int32(bytes.length), bytes];
  });
  const bind = frontendMessage(
    'B',
    Buffer.concat([cstring(''), cstring(STATEMENT_NAME), int16(0), int16(values.length), ...parameters, int16(0)]),
  );
  return Buffer.concat([bind, EXECUTE_SYNC]);
}

/** The parameters of COUNTERS_SQL in text: the projects' ids as an array literal, and whether `auth` is asked for. */
export function counterParameters(projectIds: readonly number[], auth: boolean): [string, string] {
  return [`{${projectIds.map((id) => Math.trunc(id)).join(',')}}`, auth ? 't' : 'f'];
}

interface WireConnection {
  stream: { write(bytes: Buffer): boolean };
}

/**
 * What pg's client runs for a submitted query (its "submittable" interface): it writes the bytes
 * when the connection is ready, and is told of each message of the answer.
 */
class CounterQuery {
  private readonly rows: CounterRow[] = [];
  private failure: Error | null = null;
  private settled = false;

  constructor(
    private readonly bytes: Buffer,
    private readonly settle: (error: Error | null, rows: CounterRow[]) => void,
  ) {}

  submit(connection: WireConnection): void {
    connection.stream.write(this.bytes);
  }

  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  handleDataRow(message: { fields: (string | null)[] }): void {
    const [key, counter] = message.fields;
    if (key !== null && key !== undefined && counter !== null && counter !== undefined) this.rows.push([key, Number(counter)]);
  }

  handleCopyInResponse(): void {
    this.failure ??= new Error('unexpected COPY in the change-counter read');
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    this.failure ??= error;
    // pg forgets a query that failed: the ReadyForQuery that follows is not passed on.
    this.finish();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(this.failure, this.rows);
  }
}

export class CounterConnection {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  /** Whether the statement's Parse has been sent on `client` (the reads on one connection run in order). */
  private prepared = false;
  private closed = false;
  /** performance.now() before which no new connection is tried (after one failed). */
  private retryAfter = 0;
  private readonly requests = new BoundedCache<Buffer>({ max: PREPARED_REQUESTS_MAX, ttlMs: 24 * 3600_000 });

  constructor(
    private readonly databaseUrl: string,
    private readonly timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
    private readonly readTimeoutMs: number = DEFAULT_READ_TIMEOUT_MS,
  ) {}

  /** The counters' rows for these projects (and `auth` when asked), read on this connection. */
  async read(projectIds: readonly number[], auth: boolean): Promise<CounterRow[]> {
    const client = this.client;
    if (!client) {
      // Never waits for a connection: this read goes to the pool, the next ones here once connected.
      if (!this.connecting && performance.now() >= this.retryAfter) this.connect().catch(() => {});
      throw new Error('the change-counter connection is not open (yet)');
    }
    const parameters = counterParameters(projectIds, auth);
    const requestKey = parameters.join('|');
    let request = this.requests.get(requestKey)?.value;
    if (!request) {
      request = encodeRead(parameters);
      this.requests.set(requestKey, request);
    }
    const bytes = this.prepared ? request : Buffer.concat([PARSE, request]);
    this.prepared = true;
    return new Promise<CounterRow[]>((resolve, reject) => {
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        // Whether the statement is prepared on it is unknown now: a new connection starts afresh.
        this.discard(client);
        reject(error);
      };
      const timer = setTimeout(() => fail(new Error(`the change-counter read did not answer within ${this.readTimeoutMs} ms`)), this.readTimeoutMs);
      const query = new CounterQuery(bytes, (error, rows) => {
        if (error) return fail(error);
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(rows);
      });
      client.query(query as unknown as pg.Submittable);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client ?? (await this.connecting?.catch(() => null));
    this.client = null;
    if (!client) return;
    // A connection that hangs would never end: waited for no longer than a read.
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.readTimeoutMs)));
    await Promise.race([client.end().catch(() => {}), waited]);
    clearTimeout(timer);
  }

  private connect(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the change-counter connection is closed'));
    this.connecting ??= (async () => {
      const client = new pg.Client(connectionConfig(this.databaseUrl, this.timeouts, `${APPLICATION_NAME} counters`));
      client.on('error', () => this.discard(client));
      client.on('end', () => this.discard(client));
      try {
        await client.connect();
      } catch (error) {
        this.retryAfter = performance.now() + RETRY_AFTER_FAILURE_MS;
        this.discard(client);
        throw error;
      }
      if (this.closed) {
        await client.end().catch(() => {});
        throw new Error('the change-counter connection is closed');
      }
      this.prepared = false;
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** Drops `client` (failed or lost); the next read connects again. */
  private discard(client: pg.Client): void {
    if (this.client === client) {
      this.client = null;
      this.prepared = false;
    }
    client.end().catch(() => {});
  }
}
