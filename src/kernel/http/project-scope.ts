import type { FastifyInstance, FastifyPluginAsync } from 'fastify';

/**
 * Where project-scoped routes are mounted; `{project_id}` is resolved and checked by the
 * authentication hook. PostHog serves the same routes under `/api/environments/:project_id`:
 * a second prefix is one more entry here.
 */
const PROJECT_PREFIXES = ['/api/projects/:project_id'] as const;
const ENVIRONMENT_PREFIX = '/api/environments/:project_id';

/** Registers each of `routes` under every project prefix followed by `path` (`/feature_flags`, or ''), in one context per prefix. */
export async function registerInProject(app: FastifyInstance, path: string, ...routes: FastifyPluginAsync[]): Promise<void> {
  for (const prefix of PROJECT_PREFIXES) {
    await app.register(
      async (project) => {
        for (const each of routes) await project.register(each);
      },
      { prefix: `${prefix}${path}` },
    );
  }
}

/**
 * The same as registerInProject, and also under PostHog's `/api/environments/:project_id` (for
 * routes PostHog's own clients call there, such as `/query/`).
 */
export async function registerInProjectAndEnvironment(app: FastifyInstance, path: string, ...routes: FastifyPluginAsync[]): Promise<void> {
  await registerInProject(app, path, ...routes);
  await app.register(
    async (environment) => {
      for (const each of routes) await environment.register(each);
    },
    { prefix: `${ENVIRONMENT_PREFIX}${path}` },
  );
}
