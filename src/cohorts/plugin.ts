/** The cohorts area: /api/projects/{id}/cohorts, static members, population counts through the engine. */
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import { cohortRoutes } from './routes.ts';

export const cohorts = defineArea('cohorts', ['kernel', 'accounts'], async (app) => {
  await registerInProject(app, '/cohorts', cohortRoutes(app.kernel));
});
