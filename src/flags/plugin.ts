/**
 * The flags area: the feature flag API under /api/projects/{id}/feature_flags (the flags, their
 * actions, lifecycle and bulk changes) and copy_flags between an organization's projects. Every
 * flag write goes through the one writer (writer.ts). The actions: docs/cohorts-and-flag-actions.md.
 */
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import { flagBulkRoutes } from './actions/bulk-routes.ts';
import { flagCopyRoutes } from './actions/copy-routes.ts';
import { flagLifecycleRoutes } from './actions/lifecycle-routes.ts';
import { flagActionRoutes } from './actions/routes.ts';
import { FlagCache } from './cache.ts';
import type { FlagDeps } from './deps.ts';
import { FLAG_EDIT_GATES } from './gate.ts';
import { featureFlagRoutes } from './routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's flags per project (the sdk and surveys areas read and write through it). */
    flagCache: FlagCache;
  }
}

export const flags = defineArea('flags', ['kernel', 'accounts'], async (app) => {
  const deps: FlagDeps = { ...app.kernel, authenticator: app.authenticator, flagCache: new FlagCache(app.kernel.pool, app.kernel.bus, app.kernel.counters), gates: app.extensions.list(FLAG_EDIT_GATES) };
  app.decorate('flagCache', deps.flagCache);
  await registerInProject(
    app,
    '/feature_flags',
    featureFlagRoutes(deps),
    flagActionRoutes(deps),
    flagLifecycleRoutes(deps),
    flagBulkRoutes(deps),
  );
  await app.register(flagCopyRoutes(deps));
});
