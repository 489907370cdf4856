import cluster from 'node:cluster';
import pino from 'pino';
import { runPrimary } from './cluster/primary.ts';
import { loadConfig } from './config.ts';
import { runServer } from './server.ts';

const config = loadConfig();
const logger = pino({
  level: config.logLevel,
  redact: { paths: ['req.headers.authorization', 'headers.authorization'], censor: '[redacted]' },
  ...(cluster.isWorker ? { base: { pid: process.pid, worker: Number(process.env.BELLWETHER_WORKER_SLOT ?? 0) } } : {}),
});

if (cluster.isPrimary && config.workers > 1) await runPrimary(config, logger);
else await runServer(config, logger);
