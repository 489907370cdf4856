import pino from 'pino';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createPool } from './db/pool.ts';
import { bootstrap } from './platform/bootstrap.ts';

const config = loadConfig();
const logger = pino({
  level: config.logLevel,
  redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
});

let embedded: EmbeddedDatabase | null = null;
if (!config.databaseUrl) {
  logger.info({ dataDir: config.dataDir }, 'no DATABASE_URL: starting the embedded PostgreSQL');
  embedded = await startEmbeddedPostgres(config.dataDir, (msg) => logger.warn(msg));
}
const pool = createPool(config.databaseUrl ?? embedded!.url);

try {
  const { applied } = await migrate(pool);
  if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
  const { generatedKey, projectId } = await bootstrap(pool, config.initApiKey);
  const app = await buildApp({ pool, logger });
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

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    try {
      await app.close();
      await pool.end();
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
} catch (error) {
  logger.fatal({ err: error }, 'failed to start');
  await pool.end().catch(() => {});
  await embedded?.stop().catch(() => {});
  process.exit(1);
}
