import cluster from 'node:cluster';
import { awaitsDatabase, databaseFromPrimary, workerRole } from './cluster/messages.ts';
import { loadConfig } from './config.ts';
import { trustProxyWarning } from './kernel/http/trust-proxy.ts';
import { createLogger } from './kernel/logging.ts';

// The primary of a cluster loads only what it runs (cluster/primary.ts), and so does its background
// process (cluster/background.ts); a serving process loads the service. A worker loads it while the
// primary starts the database, then asks for the database.
const role = workerRole();
const serving = role === 'api' || (role === null && process.env.WORKERS === '1') ? import('./server.ts') : null;
const background = role === 'background' ? import('./cluster/background.ts') : null;
if (awaitsDatabase()) Object.assign(process.env, await databaseFromPrimary());

const config = loadConfig();
const base = createLogger(config.logLevel);
const logger = role === 'background' ? base.child({ worker: 'background' }) : role === 'api' ? base.child({ worker: Number(process.env.BELLWETHER_WORKER_SLOT ?? 0) }) : base;
const proxyWarning = trustProxyWarning(config.trustProxy);
if (proxyWarning && !cluster.isWorker) logger.warn(proxyWarning);

if (background) await (await background).runBackground(config, logger);
else if (cluster.isPrimary && config.workers > 1) await (await import('./cluster/primary.ts')).runPrimary(config, logger);
else await (await (serving ?? import('./server.ts'))).runServer(config, logger);
