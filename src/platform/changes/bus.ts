import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Queryable } from '../../db/pool.ts';
import { changeNoticeLag } from '../metrics/metrics.ts';

export const CHANGES_CHANNEL = 'bellwether_changes';

/** What changed. Every process sharing the database hears it, after the change commits. */
export type Change =
  | { kind: 'flag'; projectId: number; id: number }
  | { kind: 'cohort'; projectId: number; id: number }
  | { kind: 'survey'; projectId: number; id: string }
  | { kind: 'group_types'; projectId: number }
  | { kind: 'project'; projectId: number }
  | { kind: 'auth' };

interface Envelope {
  origin: string;
  change: Change;
  /** When it was published (the writer's clock, ms): for the notice-lag metric. */
  at?: number;
}

type Handler = (change: Change) => void;

const RECONNECT_DELAY_MS = 1_000;

/**
 * Change notifications over PostgreSQL LISTEN/NOTIFY, so in-memory caches of several processes
 * stay true to one database. `publish` runs on the writer's transaction and is delivered only if
 * it commits. A process ignores its own notices (it updated its caches already); after a lost
 * connection every subscriber is told to resynchronise, since notices may have been missed.
 */
export class ChangeBus {
  readonly origin = randomUUID();
  private readonly handlers: { handler: Handler; ownToo: boolean }[] = [];
  private readonly resyncHandlers: (() => void)[] = [];
  private client: pg.Client | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly connectionString: string | null,
    private readonly log: (message: string) => void = () => {},
  ) {}

  async publish(db: Queryable, change: Change): Promise<void> {
    const envelope: Envelope = { origin: this.origin, change, at: Date.now() };
    await db.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, JSON.stringify(envelope)]);
  }

  /** Several changes in one statement (a batch that touched many objects). */
  async publishAll(db: Queryable, changes: readonly Change[]): Promise<void> {
    if (changes.length === 0) return;
    const at = Date.now();
    const envelopes = changes.map((change) => JSON.stringify({ origin: this.origin, change, at } satisfies Envelope));
    await db.query('SELECT pg_notify($1, e) FROM unnest($2::text[]) AS e', [CHANGES_CHANNEL, envelopes]);
  }

  /**
   * Tells this process's own subscribers, after the writer's transaction committed: a process does
   * not hear its own notices, so a writer without a cache of its own to update announces the change
   * here (other processes hear the notice it published).
   */
  announce(change: Change): void {
    for (const { handler } of this.handlers) handler(change);
  }

  /**
   * `ownToo`: also hear this process's own notices, once their transaction committed (for caches
   * that writers elsewhere in the process do not update themselves; a few milliseconds late).
   */
  subscribe(handler: Handler, options: { ownToo?: boolean } = {}): void {
    this.handlers.push({ handler, ownToo: options.ownToo === true });
  }

  onResync(handler: () => void): void {
    this.resyncHandlers.push(handler);
  }

  /** Starts listening; without a connection string (a single-process test) nothing is heard. */
  async start(): Promise<void> {
    if (!this.connectionString || this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (message) => this.deliver(message.payload));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
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
    const own = envelope.origin === this.origin;
    for (const { handler, ownToo } of this.handlers) if (!own || ownToo) handler(envelope.change);
    if (!own && typeof envelope.at === 'number') changeNoticeLag.observe({ kind: envelope.change.kind }, Math.max(0, Date.now() - envelope.at) / 1000);
  }

  private lost(client: pg.Client, error: Error | null): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    client.end().catch(() => {});
    this.log(`change notifications lost${error ? `: ${error.message}` : ''}; reconnecting`);
    for (const handler of this.resyncHandlers) handler();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    this.reconnectTimer = setTimeout(() => {
      this.start()
        .then(() => {
          // Whatever changed while no one listened is unknown: start over from the database.
          for (const handler of this.resyncHandlers) handler();
        })
        .catch(() => this.scheduleReconnect());
    }, RECONNECT_DELAY_MS);
  }
}
