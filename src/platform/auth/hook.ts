import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound, permissionDenied } from '../errors.ts';
import type { Authenticator } from './authenticator.ts';
import { principalCanReach, type Principal, type ProjectRef } from './principal.ts';
import { scopesGrant, type Scope } from './scopes.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No authentication at all (health, schema, SDK endpoints with their own token checks). */
    public?: boolean;
    /** The scope a personal API key needs; absent means any valid key. */
    scope?: Scope;
  }
  interface FastifyRequest {
    principal: Principal;
    project: ProjectRef;
  }
}

const INT32_MAX = 2147483647;

/** `@current`: the first project the key is scoped to, else the user's current project. */
export function currentProjectId(principal: Principal): number | null {
  return principal.scopedTeams?.[0] ?? principal.user.current_project_id ?? null;
}

function parseProjectParam(raw: string, principal: Principal): number | null {
  if (raw === '@current') return currentProjectId(principal);
  if (!/^\d{1,10}$/.test(raw)) return null;
  const id = Number(raw);
  return id <= INT32_MAX ? id : null;
}

/**
 * Checks every non-public request in the contract's order: authentication (401), scope (403),
 * project access (403), and only then lets the route find its object (404).
 */
export function installAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('project', null as unknown as ProjectRef);

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const config = request.routeOptions.config;
    if (config.public || request.routeOptions.url === undefined) return;
    const principal = await authenticator.authenticate(request.headers.authorization);
    request.principal = principal;
    if (config.scope && !scopesGrant(principal.scopes, config.scope)) {
      throw permissionDenied(`API key missing required scope '${config.scope}'`);
    }
    const rawProject = (request.params as Record<string, string | undefined>).project_id;
    if (rawProject === undefined) return;
    const projectId = parseProjectParam(rawProject, principal);
    const project = projectId === null ? null : await authenticator.project(projectId);
    if (!project) throw notFound();
    if (!principalCanReach(principal, project)) throw permissionDenied("You don't have access to the project.");
    request.project = project;
  });
}
