/**
 * The public surface: what SDKs and browsers call with a project token (ingestion, flag
 * evaluation, OFREP, the survey feed). A route declares its public face in `config.public`
 * (kernel/http/public-route.ts); this plugin answers it: the token, CORS, the preflight and 405.
 * Registered before the areas that use it.
 */
import { defineArea } from '../kernel/area.ts';
import { installPublicSurface } from './hook.ts';
import { ProjectTokens } from './tokens.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Project token → project, cached (the token hook, the sdk's definitions and the remote config use it). */
    projectTokens: ProjectTokens;
  }
}

export const publicSurface = defineArea('public', ['kernel'], async (app) => {
  const projectTokens = new ProjectTokens(app.kernel.pool, app.kernel.bus);
  app.decorate('projectTokens', projectTokens);
  installPublicSurface(app, projectTokens);
});
