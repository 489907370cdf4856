import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { APPLICATION_NAME, connectionConfig, DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../../db/pool.ts';
import { unitRunningOn, type UnitOfWork, type WriteTx } from '../../db/unit-of-work.ts';
import { changeNoticeLag } from '../metrics/metrics.ts';

export const CHANGES_CHANNEL = 'bellwether_changes';

/** What changed. Every process sharing the database hears it, after the change commits. */
export type Change =
  /** `version`: the flag's version as written, when the write moved it (a cache holding it need not read the flag again). */
  | { kind: 'flag'; projectId: number; id: number; version?: number }
  | { kind: 'cohort'; projectId: number; id: number }
  | { kind: 'survey'; projectId: number; id: string }
  | { kind: 'experiment'; projectId: number; id: number }
  | { kind: 'group_types'; projectId: number }
  /** Stored persons changed or merged away (ingestion); `ids` absent: any person of the project. */
  | { kind: 'persons'; projectId: number; ids?: number[] }
  | { kind: 'project'; projectId: number }
  | { kind: 'auth' };

interface Envelope {
  origin: string;
  change: Change;
  /** When it was published (the writer's clock, ms): for the notice-lag metric. */
  at?: number;
}

type Handler = (change: Change) => void;

export interface ChangeBusOptions {
  /** Told when the listener connection is lost and when it is back (warnings, not errors). */
  log?: (message: string) => void;
  timeouts?: DatabaseTimeouts;
  /** A `SELECT 1` on the listener connection this often… */
  heartbeatMs?: number;
  /** …that must answer within this long, or the connection counts as dead. */
  heartbeatTimeoutMs?: number;
  /** Reconnection waits double from the first to the last, each with jitter. */
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
}

const DEFAULTS = {
  heartbeatMs: 10_000,
  heartbeatTimeoutMs: 5_000,
  reconnectInitialMs: 250,
  reconnectMaxMs: 10_000,
};

/** The wait before reconnection attempt `attempt` (1, 2, …): doubling, capped, between half and all of it. */
export function reconnectDelay(attempt: number, initialMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Whether the change may change who may do what: such changes move the auth change counter. */
function changesGrants(change: Change): boolean {
  return change.kind === 'auth' || change.kind === 'project';
}

/**
 * The notices of `changes`, sent on `client`'s transaction: every listening process hears them
 * once it commits. `origin` names the sender (a process ignores its own). Start-up work, which
 * runs before any bus, tells the serving processes of its changes this way. A change of keys,
 * sessions, members or projects also moves the auth change counter on the same transaction.
 */
export async function notifyChanges(client: WriteTx, changes: readonly Change[], origin: string): Promise<void> {
  if (changes.length === 0) return;
  if (changes.some(changesGrants)) await client.query('UPDATE auth_change_counter SET counter = counter + 1');
  const envelopes = noticePayloads(changes, origin);
  if (envelopes.length === 1) await client.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, envelopes[0]]);
  else await client.query('SELECT pg_notify($1, e) FROM unnest($2::text[]) AS e', [CHANGES_CHANNEL, envelopes]);
}

function noticePayloads(changes: readonly Change[], origin: string): string[] {
  const at = Date.now();
  return changes.map((change) => JSON.stringify({ origin, change, at } satisfies Envelope));
}

/**
 * Change notifications over PostgreSQL LISTEN/NOTIFY, so in-memory caches of several processes
 * stay true to one database. `publish` runs on the writer's unit of work and is delivered only if
 * it commits: to this process by the unit after COMMIT, to the others by NOTIFY (a process ignores
 * its own notices over LISTEN, having heard them already).
 *
 * The listener connection is watched by a heartbeat; when it is lost (a restart, a killed backend,
 * a connection that stopped answering) every subscriber is told to resynchronise, since notices
 * may be missed, and the bus reconnects with jittered exponential backoff; once back, subscribers
 * resynchronise again (whatever they loaded meanwhile may have missed a notice).
 */
export class ChangeBus {
  readonly origin = randomUUID();
  private readonly handlers: Handler[] = [];
  private readonly resyncHandlers: (() => void)[] = [];
  private readonly settings: typeof DEFAULTS;
  private readonly log: (message: string) => void;
  private readonly timeouts: DatabaseTimeouts;
  private client: pg.Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private heartbeatInFlight = false;
  private lostAt = 0;
  private attempts = 0;
  /** Times the listener connection was lost and regained (tests and the log read them). */
  readonly stats = { lost: 0, reconnected: 0 };
  /** Each open transaction's notices, sent together just before its COMMIT. */
  private readonly pending = new WeakMap<UnitOfWork, Change[]>();

  constructor(
    private readonly connectionString: string | null,
    options: ChangeBusOptions = {},
  ) {
    this.log = options.log ?? (() => {});
    this.timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
    this.settings = {
      heartbeatMs: options.heartbeatMs ?? DEFAULTS.heartbeatMs,
      heartbeatTimeoutMs: options.heartbeatTimeoutMs ?? DEFAULTS.heartbeatTimeoutMs,
      reconnectInitialMs: options.reconnectInitialMs ?? DEFAULTS.reconnectInitialMs,
      reconnectMaxMs: options.reconnectMaxMs ?? DEFAULTS.reconnectMaxMs,
    };
  }

  /**
   * A change made by `unit`: the notice goes out on its transaction (other processes hear it once
   * it commits) and this process's subscribers hear it after the commit, from the unit itself.
   */
  async publish(unit: UnitOfWork, change: Change): Promise<void> {
    await this.publishAll(unit, [change]);
  }

  /** Several changes in one statement (a write that touched many objects). */
  async publishAll(unit: UnitOfWork, changes: readonly Change[]): Promise<void> {
    if (changes.length === 0) return;
    // One statement per transaction (a batch of scheduled changes publishes one notice per flag),
    // sent at its end: listeners hear nothing before COMMIT anyway. Keyed by the transaction's own
    // unit: a savepoint rolled back leaves its notices in, which only makes listeners read again.
    const root = unitRunningOn(unit.client) ?? unit;
    let pending = this.pending.get(root);
    if (!pending) {
      const notices: Change[] = [];
      pending = notices;
      this.pending.set(root, notices);
      root.beforeCommit(`change-notices ${this.origin}`, (client) => notifyChanges(client, notices, this.origin));
    }
    pending.push(...changes);
    unit.afterCommit(() => {
      for (const change of changes) this.hear(change);
    });
  }

  /**
   * The payloads of the notices `unit`'s transaction has yet to send, handed to a writer that sends
   * them on CHANGES_CHANNEL in a statement of its own on that transaction (the flags writer's last
   * one), so the bus does not send them again. Null when there are none, or when one of them also
   * moves the auth change counter (the bus sends those itself).
   */
  takeNotices(unit: UnitOfWork): string[] | null {
    const root = unitRunningOn(unit.client) ?? unit;
    const pending = this.pending.get(root);
    if (!pending || pending.length === 0 || pending.some(changesGrants)) return null;
    return noticePayloads(pending.splice(0), this.origin);
  }

  /** Every subscriber hears every change once: this process's own from the unit of work, the others' over LISTEN. */
  subscribe(handler: Handler): void {
    this.handlers.push(handler);
  }

  onResync(handler: () => void): void {
    this.resyncHandlers.push(handler);
  }

  /** Whether notices are being heard now. */
  get listening(): boolean {
    return this.client !== null;
  }

  /**
   * Whether every committed change is heard now: notices are being heard, or there is no
   * connection to hear them on (a single process, which hears its own changes from their units).
   */
  get hearsEveryChange(): boolean {
    return this.connectionString === null || this.client !== null;
  }

  /** Starts listening; without a connection string (a single-process test) nothing is heard. */
  async start(): Promise<void> {
    if (!this.connectionString || this.closed) return;
    const client = new pg.Client(connectionConfig(this.connectionString, this.timeouts, `${APPLICATION_NAME} listener`));
    client.on('notification', (message) => this.deliver(message.payload));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      void client.end().catch(() => {});
      throw error;
    }
    if (this.closed) {
      void client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.heartbeatTimer = setInterval(() => this.heartbeat(client), this.settings.heartbeatMs);
    this.heartbeatTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.stopHeartbeat();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private deliver(payload: string | undefined): void {
    if (!payload) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      return;
    }
    // This process heard its own changes from their unit of work, right after they committed.
    if (envelope.origin === this.origin) return;
    this.hear(envelope.change);
    if (typeof envelope.at === 'number') changeNoticeLag.observe({ kind: envelope.change.kind }, Math.max(0, Date.now() - envelope.at) / 1000);
  }

  private hear(change: Change): void {
    for (const handler of this.handlers) {
      try {
        handler(change);
      } catch (error) {
        this.log(`a change subscriber failed on ${change.kind}: ${(error as Error).message}`);
      }
    }
  }

  private heartbeat(client: pg.Client): void {
    if (this.heartbeatInFlight || this.client !== client) return;
    this.heartbeatInFlight = true;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to the heartbeat within ${this.settings.heartbeatTimeoutMs} ms`)), this.settings.heartbeatTimeoutMs);
    });
    Promise.race([client.query('SELECT 1'), expired])
      .catch((error: Error) => this.lost(client, error))
      .finally(() => {
        clearTimeout(timer);
        this.heartbeatInFlight = false;
      });
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  private lost(client: pg.Client, error: Error | null): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    this.stopHeartbeat();
    void client.end().catch(() => {});
    this.stats.lost++;
    this.lostAt = Date.now();
    this.attempts = 0;
    this.log(`change notifications lost${error ? `: ${error.message}` : ''}; caches emptied, reconnecting`);
    this.resync();
    this.scheduleReconnect();
  }

  private resync(): void {
    for (const handler of this.resyncHandlers) handler();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    this.attempts++;
    const delay = reconnectDelay(this.attempts, this.settings.reconnectInitialMs, this.settings.reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.start()
        .then(() => {
          if (this.closed || this.client === null) return;
          this.stats.reconnected++;
          const attempts = this.attempts === 1 ? '1 attempt' : `${this.attempts} attempts`;
          this.log(`change notifications back after ${Date.now() - this.lostAt} ms (${attempts}); caches emptied again`);
          // Whatever changed while no one listened is unknown: start over from the database.
          this.resync();
        })
        // Each failed attempt stays quiet: the loss was logged and the return will be.
        .catch(() => this.scheduleReconnect());
    }, delay);
    this.reconnectTimer.unref();
  }
}
