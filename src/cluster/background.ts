/**
 * The cluster's background process (WORKERS > 1): the primary forks it beside the API workers. It
 * serves no request; it delivers webhooks (the API workers do not), at a lower CPU priority
 * (BACKGROUND_NICE), so that on busy cores the kernel runs the API first. API workers' outbox
 * writes wake it through the primary (cluster/messages.ts); otherwise it looks every second, which
 * also picks up other nodes' rows and retries. The claims stay skip-locked across processes and nodes.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createPool } from '../db/pool.ts';
import { UnitsOfWork } from '../db/unit-of-work.ts';
import { collectProcessMetrics } from '../kernel/metrics/metrics.ts';
import { SecretBox } from '../webhooks/secrets.ts';
import { DEFAULT_DELIVERY_SETTINGS, DELIVERY_INTERVAL_MS, DeliveryWorker } from '../webhooks/delivery/worker.ts';
import { isWebhooksDue, SHUTDOWN_GRACE_MS, type BackgroundReadyMessage } from './messages.ts';
import { lowerPriority } from './priority.ts';
import { stopOnSignals } from './stop-signals.ts';

/** Claims, recordings and the Slack sentence's read: a few connections are plenty. */
const POOL_SIZE = 4;

export async function runBackground(config: Config, logger: Logger): Promise<void> {
  const nice = lowerPriority(config.backgroundNice);
  if (!config.databaseUrl) throw new Error('the background process needs DATABASE_URL from the primary');
  const pool = createPool(config.databaseUrl, Math.min(POOL_SIZE, config.poolSize), {
    timeouts: config.databaseTimeouts,
    preparedStatements: config.preparedStatements,
    onConnectionError: (error) => logger.warn({ err: { message: error.message } }, 'database connection lost; the pool replaces it'),
  });
  const units = new UnitsOfWork(pool, (error) => logger.error({ err: error }, 'an effect of a committed write failed'));
  const worker = new DeliveryWorker(units, new SecretBox(config.secretKey), {
    ...DEFAULT_DELIVERY_SETTINGS,
    intervalMs: DELIVERY_INTERVAL_MS,
    perEndpoint: config.webhookConcurrency,
    timeoutMs: config.webhookTimeoutMs,
    allowedHosts: config.webhookAllowedHosts,
    siteUrl: config.siteUrl,
  }, logger);

  stopOnSignals(logger, { clusterChild: true }, async (signal) => {
    logger.info({ signal }, 'background process: finishing the deliveries in flight');
    const force = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS);
    force.unref();
    await worker.stop();
    await pool.end();
  });
  process.on('message', (message: unknown) => {
    if (isWebhooksDue(message)) worker.wake();
  });

  // Its process metrics join the API workers' in the primary's sum (and it answers the primary's asks for them).
  collectProcessMetrics();
  worker.start();
  worker.wake();
  logger.info({ nice }, 'background process delivering webhooks');
  process.send?.({ type: 'bellwether:background-ready' } satisfies BackgroundReadyMessage);
}
