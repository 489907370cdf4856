import type { Pool } from '../../db/pool.ts';
import type { ChangeBus } from '../changes/bus.ts';
import { authenticationFailed, notAuthenticated } from '../errors.ts';
import { hashSecret, hashesEqual } from './keys.ts';
import type { Principal, ProjectRef } from './principal.ts';
import { findPrincipalByKeyHash, findProjectRef, touchKeyLastUsed } from './store.ts';

interface Cached<T> {
  value: T;
  expiresAt: number;
}

/**
 * How long a key or project lookup is reused. A revocation is immediate in this process and, by
 * change notice, in the others; the lifetime bounds the staleness should a notice be lost.
 */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

class TtlCache<T> {
  private readonly entries = new Map<string, Cached<T>>();

  get(key: string, now: number): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: T, now: number): void {
    if (this.entries.size >= CACHE_MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { value, expiresAt: now + CACHE_TTL_MS });
  }

  clear(): void {
    this.entries.clear();
  }
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/** Resolves bearer keys to principals and project ids to projects, with a short-lived cache. */
export class Authenticator {
  private readonly principals = new TtlCache<{ principal: Principal; secureValue: string }>();
  private readonly projects = new TtlCache<ProjectRef | null>();
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(
    private readonly pool: Pool,
    bus: ChangeBus,
  ) {
    // Keys, memberships or projects changed in another process: drop every cached grant.
    bus.subscribe((change) => {
      if (change.kind === 'auth' || change.kind === 'project') this.invalidate();
    });
    bus.onResync(() => this.invalidate());
  }

  async authenticate(authorizationHeader: string | undefined): Promise<Principal> {
    const token = bearerToken(authorizationHeader);
    if (!token) {
      // No header: no credentials. A header we cannot read: credentials that fail.
      if (!authorizationHeader?.trim()) throw notAuthenticated();
      throw authenticationFailed('Invalid Authorization header. Expected "Bearer <personal API key>".');
    }
    const hash = hashSecret(token);
    const now = Date.now();
    let found = this.principals.get(hash, now);
    if (!found) {
      const row = await findPrincipalByKeyHash(this.pool, hash);
      if (!row) throw authenticationFailed();
      found = row;
      this.principals.set(hash, found, now);
    }
    if (!hashesEqual(found.secureValue, hash)) throw authenticationFailed();
    this.noteUse(found.principal.keyId, now);
    return found.principal;
  }

  async project(projectId: number): Promise<ProjectRef | null> {
    const now = Date.now();
    const key = String(projectId);
    const cached = this.projects.get(key, now);
    if (cached !== undefined) return cached;
    const project = await findProjectRef(this.pool, projectId);
    this.projects.set(key, project, now);
    return project;
  }

  /** Called after keys, memberships or projects change, so no stale grant outlives the change here. */
  invalidate(): void {
    this.principals.clear();
    this.projects.clear();
  }

  private noteUse(keyId: string, now: number): void {
    const last = this.lastUsedWrites.get(keyId) ?? 0;
    if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWrites.set(keyId, now);
    touchKeyLastUsed(this.pool, keyId).catch(() => {});
  }
}
