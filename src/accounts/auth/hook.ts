import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { flagsCounter, type ChangeCounters } from '../../kernel/changes/counters.ts';
import { notFound, permissionDenied, scopedProjectsOnly } from '../../kernel/errors.ts';
import { resolveOrganization } from '../organizations/service.ts';
import type { Authenticator } from './authenticator.ts';
import { checkCsrf } from './csrf.ts';
import { projectRefusal, type Principal, type ProjectRef } from './principal.ts';
import { scopesGrant, type Scope } from './scopes.ts';
import { clearSessionCookies, sessionCookie } from './session-cookies.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a personal API key needs; absent means any valid key. */
    scope?: Scope;
    /**
     * The route acts on the caller's own account (`/api/users/@me/`, personal API keys), not on an
     * organization or a project: a key limited to projects or organizations may use it.
     */
    account?: boolean;
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
 * Checks every non-public request in the contract's order: authentication (401; a key, else the
 * session cookie), CSRF for a session's writes (403), scope (403), then what the route is about:
 * - `{project_id}`: the project exists (404) and the principal may reach it (403: not a member,
 *   or outside the key's scoped projects or organizations);
 * - `{organization_id}`: the organization is the user's (404) and the key may act on it (403);
 * - anything else but the caller's own account: a key limited to projects is refused (403), as
 *   PostHog refuses it every view that is not about one project;
 * and only then lets the route find its object (404).
 */
export function installAuthentication(app: FastifyInstance, authenticator: Authenticator, counters: ChangeCounters): void {
  app.decorateRequest('principal', null, []);
  app.decorateRequest('project', null as unknown as ProjectRef);

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const config = request.routeOptions.config;
    const cookie = sessionCookie(request);
    const params = request.params as Record<string, string | undefined>;
    // The auth count and the project's flag count in one read (the flag routes use the second).
    const namedProject = params.project_id !== undefined && /^\d{1,9}$/.test(params.project_id) ? Number(params.project_id) : null;
    counters.prefetch(namedProject === null ? ['auth'] : ['auth', flagsCounter(namedProject)], request.arrivedAt);
    const principal = await authenticator.authenticateRequest(request.headers.authorization, cookie, request.arrivedAt).catch((error: unknown) => {
      // A dead session: tell the browser to drop its cookies along with the 401.
      if (cookie !== undefined && !request.headers.authorization?.trim()) clearSessionCookies(request, reply);
      throw error;
    });
    if (principal.kind === 'session') checkCsrf(request, principal);
    request.principal = principal;
    if (config.scope && !scopesGrant(principal.scopes, config.scope)) {
      throw permissionDenied(`API key missing required scope '${config.scope}'`);
    }
    if (params.project_id !== undefined) {
      const projectId = parseProjectParam(params.project_id, principal);
      const project = projectId === null ? null : await authenticator.project(projectId, request.arrivedAt);
      if (!project) throw notFound();
      const refusal = projectRefusal(principal, project);
      if (refusal) throw refusal;
      request.project = project;
      return;
    }
    if (config.account) return;
    if (params.organization_id !== undefined) {
      await resolveOrganization({ authenticator }, principal, params.organization_id);
      return;
    }
    if (principal.scopedTeams?.length) throw scopedProjectsOnly();
  };
  // Public routes (the SDK endpoints) and unmatched paths pass without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.public || request.routeOptions.url === undefined) {
      done();
      return;
    }
    authenticate(request, reply).then(() => done(), done);
  });
}
