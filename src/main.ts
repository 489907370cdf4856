import cluster from 'node:cluster';
import { runPrimary } from './cluster/primary.ts';
import { loadConfig } from './config.ts';
import { trustProxyWarning } from './kernel/http/trust-proxy.ts';
import { createLogger } from './kernel/logging.ts';
import { runServer } from './server.ts';

const config = loadConfig();
const base = createLogger(config.logLevel);
const logger = cluster.isWorker ? base.child({ worker: Number(process.env.BELLWETHER_WORKER_SLOT ?? 0) }) : base;
const proxyWarning = trustProxyWarning(config.trustProxy);
if (proxyWarning && !cluster.isWorker) logger.warn(proxyWarning);

if (cluster.isPrimary && config.workers > 1) await runPrimary(config, logger);
else await runServer(config, logger);
