import pino from 'pino';
import { buildApp, type App } from './app.ts';
import { loadConfig } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import { bootstrap } from './platform/bootstrap.ts';

const config = loadConfig();
const logger = pino({
  level: config.logLevel,
  redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
});

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
  pool = createPool(databaseUrl, config.databasePoolSize, {
    timeouts: config.databaseTimeouts,
    onConnectionError: (error) => logger.warn({ err: { message: error.message } }, 'database connection lost; the pool replaces it'),
  });
  const { applied } = await migrate(pool);
  if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
  const { generatedKey, projectId } = await bootstrap(pool, config.initApiKey);
  app = await buildApp({
    pool,
    databaseUrl,
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
} catch (error) {
  logger.fatal({ err: error }, 'failed to start');
  process.stderr.write(`\nBellwether could not start: ${(error as Error).message}\n`);
  await pool?.end().catch(() => {});
  await embedded?.stop().catch(() => {});
  process.exit(1);
}
