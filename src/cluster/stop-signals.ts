import type { Logger } from 'pino';

/**
 * Stops the process once, on SIGINT, SIGTERM or, in a cluster's child, the primary's disconnect
 * (the primary was killed: nothing else would stop the child any more). Installed before anything
 * starts, so that a signal during start-up also stops what has started. `stop` finishes the work
 * in flight; the process then exits 0, or 1 when `stop` throws.
 */
export function stopOnSignals(logger: Logger, options: { clusterChild: boolean }, stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const run = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    try {
      await stop(signal);
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void run('SIGINT'));
  process.on('SIGTERM', () => void run('SIGTERM'));
  if (options.clusterChild) process.on('disconnect', () => void run('primary gone'));
}
