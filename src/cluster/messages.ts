/**
 * What the primary and its workers tell each other (src/cluster/primary.ts, src/main.ts). A worker
 * is forked at once, loads its code while the primary starts the database, migrates and
 * bootstraps, then asks for the database and gets it when that work is done.
 */
import cluster from 'node:cluster';

/**
 * After a signal, in-flight requests get this long to finish; then the connections still open are
 * closed. It bounds the stop when a connection stays busy (a client still sending the body of a
 * request already answered keeps it open for the keep-alive timeout, 72 s).
 */
export const SHUTDOWN_GRACE_MS = 10_000;

/** What a worker tells the primary once it listens. */
export interface ListeningMessage {
  type: 'bellwether:listening';
  url: string;
}

/** The background process is running (it does not listen: it delivers webhooks). */
export interface BackgroundReadyMessage {
  type: 'bellwether:background-ready';
}

/**
 * An API worker wrote to the webhook outbox: the primary passes it on to the background process,
 * which looks for due deliveries at once rather than at its next tick.
 */
export interface WebhooksDueMessage {
  type: 'bellwether:webhooks-due';
}

/** A worker, its code loaded, asks for the database. */
export interface AwaitingDatabaseMessage {
  type: 'bellwether:awaiting-database';
}

/** The primary's answer: the environment the worker starts with (DATABASE_URL, DATABASE_LISTEN_URL). */
export interface DatabaseMessage {
  type: 'bellwether:database';
  env: Record<string, string>;
}

function isMessage<T extends { type: string }>(type: T['type']) {
  return (message: unknown): message is T => typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

export const isListening = isMessage<ListeningMessage>('bellwether:listening');
export const isAwaitingDatabase = isMessage<AwaitingDatabaseMessage>('bellwether:awaiting-database');
export const isBackgroundReady = isMessage<BackgroundReadyMessage>('bellwether:background-ready');
export const isWebhooksDue = isMessage<WebhooksDueMessage>('bellwether:webhooks-due');
const isDatabase = isMessage<DatabaseMessage>('bellwether:database');

/** In a worker: asks the primary for the database and waits for its answer. */
export function databaseFromPrimary(): Promise<Record<string, string>> {
  return new Promise((resolve) => {
    // The primary gone before it answered: nothing would ever start or stop this worker.
    const onDisconnect = () => process.exit(1);
    const onMessage = (message: unknown) => {
      if (!isDatabase(message)) return;
      process.off('message', onMessage);
      process.off('disconnect', onDisconnect);
      resolve(message.env);
    };
    process.on('message', onMessage);
    process.on('disconnect', onDisconnect);
    process.send?.({ type: 'bellwether:awaiting-database' } satisfies AwaitingDatabaseMessage);
  });
}

/** Whether this process is a worker forked to wait for the database. */
export function awaitsDatabase(): boolean {
  return cluster.isWorker && process.env.BELLWETHER_AWAIT_DATABASE === '1';
}

/**
 * What a cluster worker does (BELLWETHER_ROLE, set by the primary): `api` serves requests and leaves
 * webhook delivery to the `background` process, which serves none. null: not a cluster worker (one
 * process does everything).
 */
export type WorkerRole = 'api' | 'background';

export function workerRole(): WorkerRole | null {
  if (!cluster.isWorker) return null;
  return process.env.BELLWETHER_ROLE === 'background' ? 'background' : 'api';
}

/**
 * In an API worker: tells the primary (for the background process) that the outbox has rows, at
 * once, then at most once per `windowMs` (a burst of writes costs one message per window).
 */
export function webhooksDueNotifier(windowMs: number): () => void {
  let timer: NodeJS.Timeout | null = null;
  let pending = false;
  const send = () => {
    if (process.connected) process.send?.({ type: 'bellwether:webhooks-due' } satisfies WebhooksDueMessage);
    timer = setTimeout(() => {
      timer = null;
      if (pending) {
        pending = false;
        send();
      }
    }, windowMs);
    timer.unref();
  };
  return () => {
    if (timer) pending = true;
    else send();
  };
}
