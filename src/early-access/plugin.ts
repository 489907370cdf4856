/**
 * The early access area: the management API under /api/projects/{id}/early_access_feature, and
 * the public list posthog-js reads. Enrolment needs no code here: `$feature_enrollment_update`
 * carries `$set`, which ingestion folds into the person like any other, and the flag engine reads
 * `$feature_enrollment/<key>` when the flag is marked. See docs/early-access.md.
 */
import { FLAG_EDIT_GATES } from '../flags/gate.ts';
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import type { EarlyAccessDeps } from './deps.ts';
import { linkedFlagGuard } from './flag-guard.ts';
import { earlyAccessPublicRoutes } from './public-routes.ts';
import { earlyAccessRoutes } from './routes.ts';

export const earlyAccess = defineArea('early-access', ['kernel', 'public', 'accounts', 'flags'], async (app) => {
  const deps: EarlyAccessDeps = { ...app.kernel, flagCache: app.flagCache };
  app.extensions.contribute(FLAG_EDIT_GATES, linkedFlagGuard);
  await registerInProject(app, '/early_access_feature', earlyAccessRoutes(deps));
  await app.register(earlyAccessPublicRoutes(deps));
});
