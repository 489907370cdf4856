/** The read-only flag actions: dependents, remote config, status. */
import type { Pool } from '../../db/pool.ts';
import { notFound } from '../../kernel/errors.ts';
import type { FlagCache } from '../cache.ts';
import type { RenderedFlag } from '../present.ts';
import { flagStatus, type FlagStatusResult } from '../status.ts';
import { activeDependents } from '../store.ts';

const INT32_MAX = 2147483647;

/** A flag of the project by id (deleted ones too), or 404. */
export async function flagById(flagCache: FlagCache, projectId: number, id: number): Promise<RenderedFlag> {
  const flag = (await flagCache.project(projectId)).get(id);
  if (!flag) throw notFound();
  return flag;
}

export interface Dependents {
  has_active_dependents: boolean;
  dependent_flags: Array<{ id: number; key: string; name: string }>;
}

/** Active, live flags of the project that depend on this one, by key. */
export async function dependentsOf(pool: Pool, flagCache: FlagCache, projectId: number, id: number): Promise<Dependents> {
  await flagById(flagCache, projectId, id);
  const dependents = await activeDependents(pool, projectId, id);
  return {
    has_active_dependents: dependents.length > 0,
    dependent_flags: dependents.map((flag) => ({ id: flag.id, key: flag.key, name: flag.name || flag.key })),
  };
}

/**
 * `payloads["true"]` of a remote-configuration flag, addressed by id or by key: a
 * JSON-encoded string as stored, or null. Unknown, deleted or not remote configuration → 404.
 */
export async function remoteConfigOf(flagCache: FlagCache, projectId: number, idOrKey: string): Promise<string | null> {
  const project = await flagCache.project(projectId);
  let flag = /^\d{1,10}$/.test(idOrKey) && Number(idOrKey) <= INT32_MAX ? project.get(Number(idOrKey)) : undefined;
  if (!flag) {
    const owner = project.liveKeyOwner(idOrKey);
    flag = owner === undefined ? undefined : project.get(owner);
  }
  if (!flag || flag.record.deleted || flag.record.is_remote_configuration !== true) throw notFound();
  const payload = flag.record.filters?.payloads?.true as unknown;
  if (payload === undefined || payload === null) return null;
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

export async function statusOf(flagCache: FlagCache, projectId: number, id: number, now: Date = new Date()): Promise<FlagStatusResult> {
  return flagStatus((await flagById(flagCache, projectId, id)).record, now);
}
