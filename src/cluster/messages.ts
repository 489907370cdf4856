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
