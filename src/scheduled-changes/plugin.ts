/**
 * The scheduled changes area: /api/projects/{id}/scheduled_changes and the executor that applies
 * due changes on every node through the flags writer (docs/scheduled-changes.md).
 */
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import { ScheduledChangeExecutor } from './executor.ts';
import { scheduleRoutes } from './routes.ts';
import { InteractiveWrites, WRITE_METHODS } from './yield.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's executor (tests run a round at a chosen time with `runOnce`). */
    scheduledChanges: ScheduledChangeExecutor;
  }
}

export interface ScheduledChangesOptions {
  /** Milliseconds between executor rounds; 0 (the default here, tests) turns the timer off. main.ts passes SCHEDULED_CHANGES_INTERVAL_MS. */
  scheduledChangesIntervalMs?: number;
  /** SCHEDULED_CHANGES_CONCURRENCY and SCHEDULED_CHANGES_BATCH (the executor's defaults when absent). */
  scheduledChangesConcurrency?: number;
  scheduledChangesBatch?: number;
  /** SCHEDULED_CHANGES_PAUSE_PERCENT and SCHEDULED_CHANGES_WRITE_WAIT_MS: how the executor gives way to interactive work. */
  scheduledChangesPausePercent?: number;
  scheduledChangesWriteWaitMs?: number;
}

export const scheduledChanges = defineArea<ScheduledChangesOptions>('scheduled-changes', ['kernel', 'accounts', 'flags'], async (app, options) => {
  const writes = new InteractiveWrites();
  const executor = new ScheduledChangeExecutor(
    { ...app.kernel, flagCache: app.flagCache },
    {
      log: app.log,
      intervalMs: options.scheduledChangesIntervalMs ?? 0,
      ...(options.scheduledChangesConcurrency === undefined ? {} : { concurrency: options.scheduledChangesConcurrency }),
      ...(options.scheduledChangesBatch === undefined ? {} : { batch: options.scheduledChangesBatch }),
      ...(options.scheduledChangesPausePercent === undefined ? {} : { pausePercent: options.scheduledChangesPausePercent }),
      ...(options.scheduledChangesWriteWaitMs === undefined ? {} : { writeWaitMs: options.scheduledChangesWriteWaitMs }),
      writes,
    },
  );
  app.decorate('scheduledChanges', executor);
  await registerInProject(app, '/scheduled_changes', scheduleRoutes(app.kernel));
  // Management API writes on this process, the signal a batch waits out (yield.ts). A request
  // marked on arrival is unmarked once, when it is answered or abandoned.
  const marked = new WeakSet<object>();
  app.addHook('onRequest', (request, _reply, done) => {
    if (WRITE_METHODS.has(request.method) && request.url.startsWith('/api/')) {
      marked.add(request);
      writes.started();
    }
    done();
  });
  const unmark = (request: object) => {
    if (marked.delete(request)) writes.finished();
  };
  app.addHook('onResponse', (request, _reply, done) => {
    unmark(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    unmark(request);
    done();
  });
  app.addHook('onReady', async () => executor.start());
  app.addHook('onClose', async () => executor.stop());
});
