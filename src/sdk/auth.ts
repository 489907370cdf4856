/**
 * Who may call the SDK endpoints:
 *
 * - `/flags`, `/decide`, OFREP: the project token (`phc_…`), checked by the public surface
 *   (src/public/) before the handler runs.
 * - Flag definitions (`/flags/definitions`, `/api/feature_flag/local_evaluation`, the project's
 *   `local_evaluation`): `Authorization: Bearer` with either
 *   - a personal API key (`phx_…`) with `feature_flag:read`; the project is the path's, else the
 *     one of `?token=<phc_…>`, else the key's current project (`@current`); the key must reach it;
 *   - the project's secret token (`phs_…`, stored as a hash, compared in constant time); it names
 *     its project; a `?token` or path project of another project is a 403.
 *
 * A poll's grant (its Authorization header, `?token` and path project → the project) is remembered
 * once checked: the hot polls (kernel/http/raw-answers.ts) are answered from it without the auth
 * change counter's proof. Like the secret tokens, a grant is dropped by every `auth` or `project`
 * notice (a revoked key, a removed member, a rotated secret stop working here within the notice's
 * lag) and lives 5 s at most should a notice be lost.
 */
import type { FastifyRequest } from 'fastify';
import type { Pool } from '../db/pool.ts';
import type { ProjectTokens } from '../public/tokens.ts';
import type { Authenticator } from '../accounts/auth/authenticator.ts';
import { bearerToken } from '../kernel/http/bearer.ts';
import { currentProjectId } from '../accounts/auth/hook.ts';
import { hashesEqual, hashSecret } from '../accounts/auth/keys.ts';
import { projectRefusal } from '../accounts/auth/principal.ts';
import { scopesGrant } from '../accounts/auth/scopes.ts';
import { BoundedCache } from '../kernel/bounded-cache.ts';
import type { ChangeBus } from '../kernel/changes/bus.ts';
import { authenticationFailed, notAuthenticated, notFound, orNotFound, permissionDenied, projectTokenUnknown } from '../kernel/errors.ts';
import { findProjectBySecretHash } from './store.ts';

export const SECRET_TOKEN_PREFIX = 'phs_';
const INT32_MAX = 2147483647;
const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const MAX_TOKEN_LENGTH = 200;

function firstText(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first !== '' ? first : null;
}

/** A checked poll: its project, and the personal API key whose use is recorded (null: a secret token). */
interface Grant {
  projectId: number;
  keyId: string | null;
}

export class SdkAuth {
  private readonly secrets = new BoundedCache<number | null>({ max: MAX_ENTRIES, ttlMs: TTL_MS });
  private readonly grants = new BoundedCache<Grant>({ max: MAX_ENTRIES, ttlMs: TTL_MS, metricName: 'sdk_grants' });
  /** Bumped by every clear, so a lookup that raced with a rotation is answered but not kept. */
  private secretsGeneration = 0;

  constructor(
    private readonly pool: Pool,
    private readonly authenticator: Authenticator,
    readonly tokens: ProjectTokens,
    bus: ChangeBus,
  ) {
    bus.subscribe((change) => {
      if (change.kind === 'project' || change.kind === 'auth') this.clearSecrets();
    });
    bus.onResync(() => this.clearSecrets());
  }

  /**
   * The project whose definitions the request may read. `pathProject` is the `{project_id}` of the
   * project-scoped route (absent on `/flags/definitions` and `/api/feature_flag/local_evaluation`).
   */
  async definitionsProject(request: FastifyRequest, pathProject?: string): Promise<number> {
    const queryToken = firstText((request.query as Record<string, unknown> | undefined)?.token);
    return (await this.checkDefinitions(request.headers.authorization, queryToken, pathProject)).projectId;
  }

  /**
   * `definitionsProject` for a poll, from its remembered grant when there is one (see above);
   * refusals are not remembered: they throw as `definitionsProject` does.
   */
  async definitionsGrant(authorization: string | undefined, queryToken: string | null, pathProject?: string): Promise<number> {
    if (!authorization) throw notAuthenticated();
    const key = `${authorization}\n${queryToken ?? ''}\n${pathProject ?? ''}`;
    const hit = this.grants.get(key)?.value;
    if (hit !== undefined) {
      if (hit.keyId !== null) this.authenticator.noteKeyUse(hit.keyId);
      return hit.projectId;
    }
    const generation = this.secretsGeneration;
    const grant = await this.checkDefinitions(authorization, queryToken, pathProject);
    if (generation === this.secretsGeneration) this.grants.set(key, grant);
    return grant.projectId;
  }

  private async checkDefinitions(header: string | undefined, queryToken: string | null, pathProject?: string): Promise<Grant> {
    const bearer = bearerToken(header);
    if (bearer?.startsWith(SECRET_TOKEN_PREFIX)) {
      const projectId = await this.secretProject(bearer);
      if (projectId === null) throw authenticationFailed('Project secret API key invalid.');
      if (pathProject !== undefined && pathProject !== '@current' && pathProject !== String(projectId)) {
        throw permissionDenied("The secret API key does not belong to this project.");
      }
      if (queryToken !== null) {
        const tokenProject = await this.tokens.projectId(queryToken);
        if (tokenProject === null) throw projectTokenUnknown();
        if (tokenProject !== projectId) throw permissionDenied('The project token and the secret API key belong to different projects.');
      }
      return { projectId, keyId: null };
    }

    if (!header?.trim()) throw notAuthenticated();
    const principal = await this.authenticator.authenticate(header);
    if (!scopesGrant(principal.scopes, 'feature_flag:read')) throw permissionDenied("API key missing required scope 'feature_flag:read'");
    let projectId: number | null;
    if (pathProject !== undefined) {
      projectId = pathProject === '@current' ? currentProjectId(principal) : parseProjectId(pathProject);
      if (projectId === null) throw notFound();
    } else if (queryToken !== null) {
      projectId = await this.tokens.projectId(queryToken);
      if (projectId === null) throw projectTokenUnknown();
    } else {
      projectId = currentProjectId(principal);
      if (projectId === null) throw notFound();
    }
    const project = orNotFound(await this.authenticator.project(projectId));
    const refusal = projectRefusal(principal, project);
    if (refusal) throw refusal;
    return { projectId, keyId: principal.keyId };
  }

  private async secretProject(token: string): Promise<number | null> {
    if (token.length > MAX_TOKEN_LENGTH) return null;
    const hash = hashSecret(token);
    const hit = this.secrets.get(hash);
    if (hit) return hit.value;
    const generation = this.secretsGeneration;
    const row = await findProjectBySecretHash(this.pool, hash);
    const projectId = row && hashesEqual(row.secret_token_hash, hash) ? row.id : null;
    if (generation !== this.secretsGeneration) return projectId;
    this.secrets.set(hash, projectId);
    return projectId;
  }

  private clearSecrets(): void {
    this.secretsGeneration += 1;
    this.secrets.clear();
    this.grants.clear();
  }
}

function parseProjectId(raw: string): number | null {
  if (!/^\d{1,10}$/.test(raw)) return null;
  const id = Number(raw);
  return id <= INT32_MAX ? id : null;
}
