import type { FastifyInstance, FastifyPluginAsync } from 'fastify';

/**
 * Where project-scoped routes are mounted; `{project_id}` is resolved and checked by the
 * authentication hook. PostHog serves the same routes under `/api/environments/:project_id`:
 * a second prefix is one more entry here.
 */
const PROJECT_PREFIXES = ['/api/projects/:project_id'] as const;

/** Registers `routes` under every project prefix, followed by `path` (`/feature_flags`, or none). */
export async function registerInProject(app: FastifyInstance, routes: FastifyPluginAsync, path = ''): Promise<void> {
  for (const prefix of PROJECT_PREFIXES) await app.register(routes, { prefix: `${prefix}${path}` });
}
