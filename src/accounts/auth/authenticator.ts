import type { Pool } from '../../db/pool.ts';
import { poolWrite } from '../../db/unit-of-work.ts';
import type { ChangeBus } from '../../kernel/changes/bus.ts';
import type { ChangeCounters } from '../../kernel/changes/counters.ts';
import { DAY_MS } from '../../kernel/time.ts';
import { authenticationFailed, notAuthenticated, sessionExpired } from '../../kernel/errors.ts';
import { BoundedCache } from '../../kernel/bounded-cache.ts';
import { hashSecret, hashesEqual } from './keys.ts';
import type { KeyPrincipal, Principal, ProjectRef, SessionPrincipal } from './principal.ts';
import { bearerToken } from '../../kernel/http/bearer.ts';
import {
  findPrincipalByKeyHash,
  findProjectRef,
  findSessionByHash,
  touchKeyLastUsed,
  touchSession,
  type FoundPrincipal,
  type FoundSession,
} from './store.ts';

/**
 * How long a key, session or project lookup is reused at most; within it, each use is proven
 * current by the auth change counter (see Authenticator).
 */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** A session cookie longer than this is not one of ours; it is refused before hashing. */
const MAX_SESSION_COOKIE_LENGTH = 200;

/** How long a session lives: `idleMs` after its last request, `maxAgeMs` after sign-in at most. */
export interface SessionLimits {
  idleMs: number;
  maxAgeMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { idleMs: 14 * DAY_MS, maxAgeMs: 30 * DAY_MS };

/** A short-lived cache of lookups, bounded (least recently used go first). */
function lookupCache<T>(metricName: string): BoundedCache<T> {
  return new BoundedCache<T>({ max: CACHE_MAX_ENTRIES, ttlMs: CACHE_TTL_MS, metricName });
}

/**
 * Resolves bearer keys and session cookies to principals and project ids to projects, with a
 * short-lived cache proven current on every request: the auth change counter (moved by every
 * committed change of keys, sessions, members and projects, in any process) is read first, one
 * row shared by the requests waiting for it, and every cached lookup is dropped when it moved.
 */
export class Authenticator {
  private readonly principals = lookupCache<FoundPrincipal>('auth_keys');
  private readonly sessions = lookupCache<FoundSession>('auth_sessions');
  private readonly projects = lookupCache<ProjectRef | null>('auth_projects');
  /** The auth change count the cached lookups were read under (-1: none read yet). */
  private seen = -1;
  /**
   * sha256 of the keys and session cookies seen lately: every request would hash its credential
   * again. Held no longer than the lookups they lead to.
   */
  private readonly hashes = new BoundedCache<string>({ max: CACHE_MAX_ENTRIES, ttlMs: CACHE_TTL_MS });
  /** When each key or session's last use was written: remembered for the interval, the oldest dropped first when full. */
  private readonly lastUsedWrites = new BoundedCache<true>({ max: CACHE_MAX_ENTRIES, ttlMs: LAST_USED_WRITE_INTERVAL_MS });

  constructor(
    private readonly pool: Pool,
    bus: ChangeBus,
    private readonly counters: ChangeCounters,
    readonly sessionLimits: SessionLimits = DEFAULT_SESSION_LIMITS,
  ) {
    // Keys, memberships or projects changed in another process: drop every cached grant.
    bus.subscribe((change) => {
      if (change.kind === 'auth' || change.kind === 'project') this.invalidate();
    });
    bus.onResync(() => this.invalidate());
  }

  /**
   * The management API's one way in: a request with an Authorization header is judged by its key
   * alone (any cookie ignored); otherwise by its session cookie; with neither, 401.
   */
  async authenticateRequest(authorizationHeader: string | undefined, sessionCookie: string | undefined, since?: number): Promise<Principal> {
    if (authorizationHeader?.trim() || !sessionCookie) return this.authenticate(authorizationHeader, since);
    return this.authenticateSession(sessionCookie, since);
  }

  /** A personal API key from an Authorization header (the SDK endpoints use this alone: never a cookie). */
  async authenticate(authorizationHeader: string | undefined, since?: number): Promise<KeyPrincipal> {
    const token = bearerToken(authorizationHeader);
    if (!token) {
      // No header: no credentials. A header we cannot read: credentials that fail.
      if (!authorizationHeader?.trim()) throw notAuthenticated();
      throw authenticationFailed('Invalid Authorization header. Expected "Bearer <personal API key>".');
    }
    const hash = this.hashOf(token);
    const generation = await this.current(since);
    let found = this.principals.get(hash)?.value;
    if (!found) {
      const row = await findPrincipalByKeyHash(this.pool, hash);
      if (!row) throw authenticationFailed();
      found = row;
      if (this.seen === generation) this.principals.set(hash, found);
    }
    if (!hashesEqual(found.secureValue, hash)) throw authenticationFailed();
    this.noteUse(found.principal.keyId, (id) => touchKeyLastUsed(poolWrite(this.pool), id));
    return found.principal;
  }

  /** A session cookie's value: 401 when it is unknown, signed out, or past its idle or absolute limit. */
  async authenticateSession(cookieValue: string, since?: number): Promise<SessionPrincipal> {
    if (cookieValue.length > MAX_SESSION_COOKIE_LENGTH) throw sessionExpired();
    const hash = this.hashOf(cookieValue);
    const generation = await this.current(since);
    const now = Date.now();
    let found = this.sessions.get(hash)?.value;
    if (!found) {
      const row = await findSessionByHash(this.pool, hash);
      if (!row) throw sessionExpired();
      found = row;
      if (this.seen === generation) this.sessions.set(hash, found);
    }
    if (found.expiresAt <= now || found.lastSeenAt + this.sessionLimits.idleMs <= now) throw sessionExpired();
    if (!hashesEqual(found.principal.sessionHash, hash)) throw sessionExpired();
    this.noteUse(hash, (id) => touchSession(poolWrite(this.pool), id));
    return found.principal;
  }

  async project(projectId: number, since?: number): Promise<ProjectRef | null> {
    const key = String(projectId);
    const generation = await this.current(since);
    const cached = this.projects.get(key);
    if (cached) return cached.value;
    const project = await findProjectRef(this.pool, projectId);
    if (this.seen === generation) this.projects.set(key, project);
    return project;
  }

  /**
   * The auth change count read after `since` (the request's arrival; default now); when it moved
   * since the cached lookups were read, they are dropped. A lookup read under an older count than
   * `seen` is not kept.
   */
  private async current(since?: number): Promise<number> {
    const count = await this.counters.get('auth', since);
    if (count > this.seen) {
      this.invalidate();
      this.seen = count;
    }
    return count;
  }

  private hashOf(secret: string): string {
    const known = this.hashes.get(secret)?.value;
    if (known !== undefined) return known;
    const hash = hashSecret(secret);
    this.hashes.set(secret, hash);
    return hash;
  }

  /** Called after keys, memberships or projects change, so no stale grant outlives the change here. */
  invalidate(): void {
    this.principals.clear();
    this.sessions.clear();
    this.projects.clear();
  }

  /** Records the use of a key whose grant the caller remembered (sdk/auth.ts), as `authenticate` does. */
  noteKeyUse(keyId: string): void {
    this.noteUse(keyId, (id) => touchKeyLastUsed(poolWrite(this.pool), id));
  }

  /** Records a key's or session's use at most once a minute (last_used_at, the idle limit's clock). */
  private noteUse(id: string, touch: (id: string) => Promise<void>): void {
    if (this.lastUsedWrites.get(id)) return;
    this.lastUsedWrites.set(id, true);
    touch(id).catch(() => {});
  }
}
