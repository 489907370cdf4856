import cluster from 'node:cluster';
import { awaitsDatabase, databaseFromPrimary } from './cluster/messages.ts';
import { loadConfig } from './config.ts';
import { trustProxyWarning } from './kernel/http/trust-proxy.ts';
import { createLogger } from './kernel/logging.ts';

// The primary of a cluster loads only what it runs (cluster/primary.ts); a serving process loads
// the service. A worker loads it while the primary starts the database, then asks for the database.
const serving = cluster.isWorker || process.env.WORKERS === '1' ? import('./server.ts') : null;
if (awaitsDatabase()) Object.assign(process.env, await databaseFromPrimary());

const config = loadConfig();
const base = createLogger(config.logLevel);
const logger = cluster.isWorker ? base.child({ worker: Number(process.env.BELLWETHER_WORKER_SLOT ?? 0) }) : base;
const proxyWarning = trustProxyWarning(config.trustProxy);
if (proxyWarning && !cluster.isWorker) logger.warn(proxyWarning);

if (cluster.isPrimary && config.workers > 1) await (await import('./cluster/primary.ts')).runPrimary(config, logger);
else await (await (serving ?? import('./server.ts'))).runServer(config, logger);
