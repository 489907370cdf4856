/**
 * A copied flag's dependencies on other flags (`type: "flag"` conditions name a flag by id): in the
 * target they name the target's live flag of the same key. A dependency the target lacks fails
 * that target (copy the flag it depends on first).
 */
import type { ReadHandle } from '../../db/pool.ts';
import { validationError } from '../../kernel/errors.ts';
import type { FlagFilters } from '../../targeting/types.ts';
import { liveFlagsByIds } from '../store.ts';
import { dependencyIdsOf } from '../validation/index.ts';
import { parseIntegerId } from '../validation/cohorts.ts';

export interface DependencyTarget {
  db: ReadHandle;
  fromProjectId: number;
  /** The target's live flag holding this key, if any. */
  targetFlagOf(key: string): Promise<number | undefined>;
}

export async function remapFlagDependencies(filters: FlagFilters, target: DependencyTarget): Promise<FlagFilters> {
  const sourceIds = [...new Set(dependencyIdsOf(filters))];
  if (sourceIds.length === 0) return filters;
  const ids = new Map<number, number>();
  for (const flag of await liveFlagsByIds(target.db, target.fromProjectId, sourceIds)) {
    const targetId = await target.targetFlagOf(flag.key);
    if (targetId === undefined) {
      throw validationError(`The flag depends on flag '${flag.key}', which the target project does not have: copy that flag first.`);
    }
    ids.set(flag.id, targetId);
  }
  const missing = sourceIds.find((id) => !ids.has(id));
  if (missing !== undefined) throw validationError(`The flag depends on flag ${missing}, which does not exist in the source project.`);
  return {
    ...filters,
    groups: (filters.groups ?? []).map((group) => ({
      ...group,
      properties: (group.properties ?? []).map((property) => {
        const id = property.type === 'flag' ? parseIntegerId(property.key) : null;
        const mapped = id === null ? undefined : ids.get(id);
        return mapped === undefined ? property : { ...property, key: typeof property.key === 'number' ? mapped : String(mapped) };
      }),
    })),
  };
}
