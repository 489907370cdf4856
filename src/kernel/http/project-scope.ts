import type { FastifyInstance, FastifyPluginAsync } from 'fastify';

/**
 * Where project-scoped routes are mounted; `{project_id}` names an environment (PostHog's team)
 * and is resolved and checked by the authentication hook. PostHog serves every such route under
 * both prefixes; a project's id is its first environment's, so `/api/projects/{id}/…` keeps
 * naming what it named before projects had several environments.
 */
const PROJECT_PREFIXES = ['/api/projects/:project_id', '/api/environments/:project_id'] as const;

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
