/**
 * The ingestion area: `/batch/`, `/capture/`, `/e/`, `/i/v0/e/` and the older capture paths,
 * authenticated by the project token. Other areas add their processors to `EVENT_PROCESSORS`;
 * they run after the events are stored, in the same transaction. See docs/ingestion.md.
 */
import { defineArea } from '../../kernel/area.ts';
import { EVENT_PROCESSORS } from '../pipeline.ts';
import { ingestionRoutes } from './routes.ts';
import { ProjectTokens } from './tokens.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Project token → project, cached (the sdk and the survey feed authenticate with it too). */
    projectTokens: ProjectTokens;
  }
}

export const ingestion = defineArea('ingestion', ['kernel'], async (app) => {
  const projectTokens = new ProjectTokens(app.kernel.pool, app.kernel.bus);
  app.decorate('projectTokens', projectTokens);
  await app.register(ingestionRoutes({ ...app.kernel, projectTokens }, app.extensions.list(EVENT_PROCESSORS)));
});
