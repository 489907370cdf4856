/**
 * One serving process: the whole service when WORKERS=1, or a cluster's API worker (src/cluster/primary.ts
 * did the start-up work: database, migrations, bootstrap; it passes DATABASE_URL on; webhook
 * delivery is the background process's, src/cluster/background.ts).
 */
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { buildApp, type App } from './app.ts';
import type { Config } from './config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { migrateOn } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import { collectProcessMetrics } from './kernel/metrics/metrics.ts';
import { startMetricsListener } from './kernel/metrics/listener.ts';
import { prepareFirstStart, printStarted, type FirstStart } from './started.ts';
import { DELIVERY_INTERVAL_MS, WAKE_WINDOW_MS } from './webhooks/delivery/worker.ts';
import { SHUTDOWN_GRACE_MS, webhooksDueNotifier, workerRole, type ListeningMessage } from './cluster/messages.ts';
import { stopOnSignals } from './cluster/stop-signals.ts';

export { SHUTDOWN_GRACE_MS, type ListeningMessage } from './cluster/messages.ts';

export async function runServer(config: Config, logger: Logger): Promise<void> {
  const worker = cluster.isWorker;
  let embedded: EmbeddedDatabase | null = null;
  let pool: Pool | null = null;
  let app: App | null = null;

  stopOnSignals(logger, { clusterChild: worker }, async (signal) => {
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
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
  });

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
    let started: FirstStart | null = null;
    if (!worker) {
      // Migrations hold a session advisory lock: on the direct connection, not through a pooler.
      const { applied } = await migrateOn(listenUrl);
      if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
      started = await prepareFirstStart(pool, config, (message) => logger.warn(message));
    }
    app = await buildApp({
      pool,
      databaseUrl: listenUrl,
      logger,
      surveyJobsIntervalMs: config.surveyJobsIntervalMs,
      experimentSignificanceIntervalMs: config.experimentSignificanceIntervalMs,
      scheduledChangesIntervalMs: config.scheduledChangesIntervalMs,
      scheduledChangesConcurrency: config.scheduledChangesConcurrency,
      scheduledChangesBatch: config.scheduledChangesBatch,
      scheduledChangesPausePercent: config.scheduledChangesPausePercent,
      scheduledChangesWriteWaitMs: config.scheduledChangesWriteWaitMs,
      trustProxy: config.trustProxy,
      siteUrl: config.siteUrl,
      sessionLimits: config.sessionLimits,
      databaseTimeouts: config.databaseTimeouts,
      secretKey: config.secretKey,
      webhookAllowedHosts: config.webhookAllowedHosts,
      webhookDelivery: { intervalMs: DELIVERY_INTERVAL_MS, perEndpoint: config.webhookConcurrency, timeoutMs: config.webhookTimeoutMs },
      // A cluster's API workers leave delivery to the background process (cluster/background.ts).
      webhooksDeliveredElsewhere: workerRole() === 'api' ? webhooksDueNotifier(WAKE_WINDOW_MS) : undefined,
      oidc: config.oidc,
      mail: config.mail,
    });
    collectProcessMetrics();
    if (!worker && config.metricsPort !== null) {
      const metrics = await startMetricsListener(config.metricsPort, config.host, 'process');
      app.addHook('onClose', async () => metrics.close());
      logger.info({ url: metrics.url }, 'metrics listening');
    }
    const address = await app.listen({ port: config.port, host: config.host });
    const url = address.replace('://0.0.0.0', '://127.0.0.1');
    if (worker) {
      process.send?.({ type: 'bellwether:listening', url } satisfies ListeningMessage);
    } else {
      logger.info({ url }, 'Bellwether is listening');
      printStarted(url, config.siteUrl, started!, config.oidc !== null);
    }
  } catch (error) {
    logger.fatal({ err: error }, 'failed to start');
    process.stderr.write(`\nBellwether could not start: ${(error as Error).message}\n`);
    await pool?.end().catch(() => {});
    await embedded?.stop().catch(() => {});
    process.exit(1);
  }
}
