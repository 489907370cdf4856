import type { Pool } from '../db/pool.ts';
import type { ChangeBus } from '../kernel/changes/bus.ts';
import { BoundedCache } from '../kernel/bounded-cache.ts';
import { unstorableProblem } from '../kernel/http/storable-text.ts';
import { findProjectIdByToken } from './store.ts';

/** How long a token's project (or its absence) is reused without asking the database. */
const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
/** Longer than any project token; such a value is not looked up. */
const MAX_TOKEN_LENGTH = 200;

/**
 * Project token → project id, cached for a few seconds (unknown tokens too, so a client sending a
 * wrong token in a loop costs no query per request), the least recently used dropped first when
 * full. Project changes and a lost notification connection drop the whole cache.
 */
export class ProjectTokens {
  private readonly entries = new BoundedCache<number | null>({ max: MAX_ENTRIES, ttlMs: TTL_MS });
  private readonly pending = new Map<string, Promise<number | null>>();
  /** Bumped by every clear, so a lookup that raced with a change is answered but not kept. */
  private generation = 0;

  constructor(
    private readonly pool: Pool,
    bus: ChangeBus,
  ) {
    bus.subscribe((change) => {
      if (change.kind === 'project' || change.kind === 'auth') this.clear();
    });
    bus.onResync(() => this.clear());
  }

  async projectId(token: string): Promise<number | null> {
    // Too long, or holding text PostgreSQL refuses (NUL): no project has it, and no query is made.
    if (token.length > MAX_TOKEN_LENGTH || unstorableProblem(token)) return null;
    const hit = this.entries.get(token);
    if (hit) return hit.value;
    const inFlight = this.pending.get(token);
    if (inFlight) return inFlight;
    const generation = this.generation;
    const lookup = findProjectIdByToken(this.pool, token)
      .then((projectId) => {
        if (generation !== this.generation) return projectId;
        this.entries.set(token, projectId);
        return projectId;
      })
      .finally(() => {
        if (this.pending.get(token) === lookup) this.pending.delete(token);
      });
    this.pending.set(token, lookup);
    return lookup;
  }

  /** The token's project turned out to be gone (deleted before the notice of it arrived here). */
  forget(token: string): void {
    this.entries.delete(token);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
    this.pending.clear();
  }
}
