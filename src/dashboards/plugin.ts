/** The dashboards area: /api/projects/{id}/dashboards and their insights (read-only). */
import { defineArea } from '../kernel/area.ts';
import { registerInProject } from '../kernel/http/project-scope.ts';
import { dashboardRoutes } from './routes.ts';

export const dashboards = defineArea('dashboards', ['kernel', 'accounts'], async (app) => {
  await registerInProject(app, '/dashboards', dashboardRoutes(app.kernel));
});
