import { buildApp, type App } from './app.ts';
import { loadConfig } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { migrateOn } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import { bootstrap } from './platform/bootstrap.ts';
import { ensureFirstOwner } from './platform/first-owner.ts';
import { signInLink } from './platform/sessions/sign-in-links.ts';
import { createLogger } from './platform/logging.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel);

let embedded: EmbeddedDatabase | null = null;
let pool: Pool | null = null;
let app: App | null = null;

/**
 * After a signal, in-flight requests get this long to finish; then the connections still open are
 * closed. It bounds the stop when a connection stays busy (a client still sending the body of a
 * request already answered keeps it open for the keep-alive timeout, 72 s).
 */
const SHUTDOWN_GRACE_MS = 10_000;

// Installed before anything starts, so a signal during start-up also stops what has started.
let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  try {
    const server = app?.server;
    const force = setTimeout(() => {
      logger.warn(`requests still in flight after ${SHUTDOWN_GRACE_MS} ms: closing their connections`);
      server?.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    await app?.close();
    clearTimeout(force);
    await pool?.end();
    await embedded?.stop();
    logger.info('stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'error while shutting down');
    process.exit(1);
  }
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  if (!config.databaseUrl) {
    logger.info({ dataDir: config.dataDir }, 'no DATABASE_URL: starting the embedded PostgreSQL');
    embedded = await startEmbeddedPostgres(config.dataDir, (msg) => logger.warn(msg), { ownsShutdownSignals: true });
  }
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const listenUrl = config.listenUrl ?? databaseUrl;
  pool = createPool(databaseUrl, config.poolSize, {
    timeouts: config.databaseTimeouts,
    preparedStatements: config.preparedStatements,
    onConnectionError: (error) => logger.warn({ err: { message: error.message } }, 'database connection lost; the pool replaces it'),
  });
  // Migrations hold a session advisory lock: on the direct connection, not through a pooler.
  const { applied } = await migrateOn(listenUrl);
  if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
  const { generatedKey, projectId } = await bootstrap(pool, config.initApiKey, config.initAdminEmail ?? undefined);
  const signInToken = await ensureFirstOwner(pool, { email: config.initAdminEmail, password: config.initAdminPassword });
  app = await buildApp({
    pool,
    databaseUrl: listenUrl,
    logger,
    surveyJobsIntervalMs: config.surveyJobsIntervalMs,
    trustProxy: config.trustProxy,
    siteUrl: config.siteUrl,
    sessionLimits: config.sessionLimits,
    databaseTimeouts: config.databaseTimeouts,
  });
  const address = await app.listen({ port: config.port, host: config.host });
  const url = address.replace('://0.0.0.0', '://127.0.0.1');
  logger.info({ url }, 'Bellwether is listening');
  process.stdout.write(`\nBellwether is running at ${url}\n`);
  if (generatedKey) {
    process.stdout.write(
      `First start: created a personal API key with scope "*" (shown only this once):\n\n    ${generatedKey}\n\n` +
        `Try: curl -H "Authorization: Bearer ${generatedKey}" ${url}/api/projects/${projectId}/feature_flags/\n\n`,
    );
  }
  if (signInToken) {
    // Printed, never logged: like the key, it is for the person at the terminal.
    process.stdout.write(
      `Open the console and sign in as its owner (one-time link, valid 24 hours; set a password there):\n\n` +
        `    ${signInLink(config.siteUrl ?? url, signInToken)}\n\n`,
    );
  }
} catch (error) {
  logger.fatal({ err: error }, 'failed to start');
  process.stderr.write(`\nBellwether could not start: ${(error as Error).message}\n`);
  await pool?.end().catch(() => {});
  await embedded?.stop().catch(() => {});
  process.exit(1);
}
