/** The events list: GET /api/projects/{id}/events (read-only; ingestion writes events). See docs/event-store.md. */
import { defineArea } from '../../kernel/area.ts';
import { registerInProject } from '../../kernel/http/project-scope.ts';
import { eventListRoutes } from './routes.ts';

export const eventsList = defineArea('events-list', ['kernel', 'accounts'], async (app) => {
  await registerInProject(app, '/events', eventListRoutes(app.kernel));
});
