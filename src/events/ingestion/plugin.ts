/**
 * The ingestion area: `/batch/`, `/capture/`, `/e/`, `/i/v0/e/` and the older capture paths,
 * authenticated by the project token (the public surface reads it). Other areas add their
 * processors to `EVENT_PROCESSORS`; they run after the events are stored, in the same transaction.
 * See docs/ingestion.md.
 */
import { defineArea } from '../../kernel/area.ts';
import { EVENT_PROCESSORS } from '../pipeline.ts';
import { ingestionRoutes } from './routes.ts';

export const ingestion = defineArea('ingestion', ['kernel', 'public'], async (app) => {
  await app.register(ingestionRoutes({ ...app.kernel, projectTokens: app.projectTokens }, app.extensions.list(EVENT_PROCESSORS)));
});
