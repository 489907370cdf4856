/** The persons area: /api/projects/{id}/persons, groups and group types (read-only: ingestion writes them). See docs/persons.md. */
import { defineArea } from '../../kernel/area.ts';
import { registerInProject } from '../../kernel/http/project-scope.ts';
import { groupRoutes } from '../groups/routes.ts';
import { personRoutes } from './routes.ts';

export const persons = defineArea('persons', ['kernel', 'accounts'], async (app) => {
  await registerInProject(app, '/persons', personRoutes(app.kernel));
  await registerInProject(app, '', groupRoutes(app.kernel));
});
