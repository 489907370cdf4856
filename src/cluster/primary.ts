/**
 * `npm start` with WORKERS > 1: this process forks the API workers (src/server.ts), which share the
 * port, and one background process (cluster/background.ts: webhook delivery, at a lower CPU
 * priority), and while they load their code it starts the embedded PostgreSQL (without DATABASE_URL),
 * migrates and bootstraps once; then it hands them the database (cluster/messages.ts). A
 * worker that dies is logged and replaced, later each time it dies young; SIGTERM/SIGINT stop the
 * workers (each finishes its requests), then the embedded PostgreSQL.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.ts';
import { migrateOn } from '../db/migrate.ts';
import { createPool } from '../db/pool.ts';
import { isAwaitingDatabase, isBackgroundReady, isListening, isWebhooksDue, SHUTDOWN_GRACE_MS, type DatabaseMessage, type WorkerRole } from './messages.ts';
import { startMetricsListener } from '../kernel/metrics/listener.ts';
import { prepareFirstStart, printStarted } from '../started.ts';
import { discoverProvider } from '../accounts/oidc/provider.ts';

/** A worker living shorter than this counts as a crash loop: its replacement waits longer. */
const YOUNG_DEATH_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** Beyond the workers' own grace period: then they are killed. */
const STOP_MARGIN_MS = 5_000;

interface Slot {
  index: number;
  role: WorkerRole;
  worker: Worker | null;
  startedAt: number;
  youngDeaths: number;
  restartTimer: NodeJS.Timeout | null;
}

/** The delay before replacing a worker whose slot saw `youngDeaths` young deaths in a row (0: it lived long). */
export function restartDelay(youngDeaths: number): number {
  if (youngDeaths === 0) return 0;
  return Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (youngDeaths - 1));
}

export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  // The workers accept connections themselves: with Node's default round robin every connection
  // passes through this process first, which on a machine with as many workers as cores costs the
  // workers a share of a core (measured on 2 cores: /flags/definitions fell to 0.60× of one worker).
  // NODE_CLUSTER_SCHED_POLICY=rr restores round robin.
  if (!process.env.NODE_CLUSTER_SCHED_POLICY) cluster.schedulingPolicy = cluster.SCHED_NONE;
  let embedded: EmbeddedDatabase | null = null;
  let stopping = false;
  let running = false;
  const slots: Slot[] = Array.from({ length: config.workers + 1 }, (_, index) => ({
    index,
    role: index < config.workers ? 'api' : 'background',
    worker: null,
    startedAt: 0,
    youngDeaths: 0,
    restartTimer: null,
  }));
  const backgroundSlot = slots[config.workers];
  /** The database for the workers, once started, migrated and bootstrapped. */
  let workerEnv: Record<string, string> | null = null;
  /** Workers that asked for the database before it was ready. */
  const awaiting = new Set<Worker>();
  const handDatabase = (worker: Worker, env: Record<string, string>) => {
    if (!worker.isDead()) worker.send({ type: 'bellwether:database', env } satisfies DatabaseMessage);
  };

  const alive = () => slots.flatMap((slot) => (slot.worker && !slot.worker.isDead() ? [slot.worker] : []));
  const allExited = () =>
    new Promise<void>((resolve) => {
      const check = () => (alive().length === 0 ? resolve() : setTimeout(check, 50));
      check();
    });

  const shutdown = async (signal: string, status = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: alive().length }, 'shutting down: stopping the workers');
    for (const slot of slots) if (slot.restartTimer) clearTimeout(slot.restartTimer);
    try {
      for (const worker of alive()) worker.process.kill('SIGTERM');
      const killer = setTimeout(() => {
        logger.warn(`workers still running after ${SHUTDOWN_GRACE_MS + STOP_MARGIN_MS} ms: killing them`);
        for (const worker of alive()) worker.process.kill('SIGKILL');
      }, SHUTDOWN_GRACE_MS + STOP_MARGIN_MS);
      await allExited();
      clearTimeout(killer);
      await embedded?.stop();
      logger.info('stopped');
      process.exit(status);
    } catch (error) {
      logger.error({ err: error }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const fork = (slot: Slot): Worker => {
    slot.restartTimer = null;
    // One worker runs the periodic jobs (they are also guarded by an advisory lock).
    const env = {
      BELLWETHER_AWAIT_DATABASE: '1',
      BELLWETHER_ROLE: slot.role,
      BELLWETHER_WORKER_SLOT: String(slot.index),
      ...(slot.index === 0 ? {} : { SURVEY_JOBS_INTERVAL_MS: '0' }),
    };
    const worker = cluster.fork(env);
    worker.on('message', (message: unknown) => {
      if (isWebhooksDue(message)) {
        const background = backgroundSlot.worker;
        if (background && !background.isDead() && background.isConnected()) background.send(message);
        return;
      }
      if (!isAwaitingDatabase(message)) return;
      if (workerEnv === null) awaiting.add(worker);
      else handDatabase(worker, workerEnv);
    });
    slot.worker = worker;
    slot.startedAt = Date.now();
    return worker;
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.find((candidate) => candidate.worker === worker);
    if (!slot || stopping) return;
    slot.worker = null;
    if (!running) {
      logger.fatal({ workerPid: worker.process.pid, code, signal }, 'a worker exited during start-up');
      void shutdown('start-up failed', 1);
      return;
    }
    const lived = Date.now() - slot.startedAt;
    slot.youngDeaths = lived < YOUNG_DEATH_MS ? slot.youngDeaths + 1 : 0;
    const delay = restartDelay(slot.youngDeaths);
    logger.error({ slot: slot.index, role: slot.role, workerPid: worker.process.pid, code, signal, livedMs: lived, restartInMs: delay }, 'worker died: replacing it');
    slot.restartTimer = setTimeout(() => fork(slot), delay);
  });

  try {
    // Forked first: they load their code meanwhile, and wait for the database. Each answers once it
    // runs: an API worker with the URL it listens on, the background process with its readiness.
    const ready = slots.map((slot) => {
      const worker = fork(slot);
      return new Promise<string | null>((resolve) => {
        const onMessage = (message: unknown) => {
          if (slot.role === 'api' ? !isListening(message) : !isBackgroundReady(message)) return;
          worker.off('message', onMessage);
          resolve(isListening(message) ? message.url : null);
        };
        worker.on('message', onMessage);
      });
    });
    if (!config.databaseUrl) {
      logger.info({ dataDir: config.dataDir }, 'no DATABASE_URL: starting the embedded PostgreSQL');
      embedded = await startEmbeddedPostgres(config.dataDir, (msg) => logger.warn(msg), { ownsShutdownSignals: true });
    }
    const databaseUrl = config.databaseUrl ?? embedded!.url;
    const listenUrl = config.listenUrl ?? databaseUrl;
    const { applied } = await migrateOn(listenUrl);
    if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
    const pool = createPool(databaseUrl, 2, { timeouts: config.databaseTimeouts, preparedStatements: config.preparedStatements });
    const started = await prepareFirstStart(pool, config, (message) => logger.warn(message)).finally(() => pool.end());
    // Once here, so that a provider that cannot be read stops the start with its message rather than in every worker.
    if (config.oidc && config.siteUrl) await discoverProvider(config.oidc, config.siteUrl);
    const env = { DATABASE_URL: databaseUrl, DATABASE_LISTEN_URL: listenUrl };
    workerEnv = env;
    for (const worker of awaiting) handDatabase(worker, env);
    awaiting.clear();

    const [url] = (await Promise.all(ready)) as [string, ...(string | null)[]];
    if (stopping) return;
    if (config.metricsPort !== null) {
      const metrics = await startMetricsListener(config.metricsPort, config.host, 'cluster');
      logger.info({ url: metrics.url }, 'metrics listening (summed over the workers)');
    }
    running = true;
    logger.info({ url, workers: config.workers }, 'Bellwether is listening');
    printStarted(url, config.siteUrl, started, config.oidc !== null);
  } catch (error) {
    logger.fatal({ err: error }, 'failed to start');
    process.stderr.write(`\nBellwether could not start: ${(error as Error).message}\n`);
    await shutdown('start-up failed', 1);
  }
}
