/**
 * `POST user_blast_radius`: how many of the project's persons (or, with
 * `group_type_index`, groups of that type) a condition set's properties match, evaluated by the
 * engine over the stored properties. The rollout percentage is not applied (PostHog leaves it to
 * the caller). The condition is validated as a flag's condition set would be.
 */
import { sharedFor } from '../../cohorts/calculation.ts';
import { conditionMatcher, groupSubjects, personSubjects, type Matcher } from '../../cohorts/population.ts';
import type { Pool } from '../../db/pool.ts';
import { ApiError, validationError } from '../../kernel/errors.ts';
import type { FlagCache } from '../cache.ts';
import { flagLookup } from '../lookup.ts';
import type { FlagProperty } from '../../targeting/types.ts';
import { validateFilters } from '../validation/index.ts';

export interface BlastRadiusBody {
  condition?: unknown;
  group_type_index?: number | null;
}

export interface BlastRadius {
  users_affected: number;
  total_users: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The condition's properties, validated; errors name `condition`. */
async function conditionProperties(pool: Pool, projectId: number, condition: Record<string, unknown>, groupTypeIndex: number | null): Promise<FlagProperty[]> {
  const properties = condition.properties ?? [];
  if (groupTypeIndex !== null && Array.isArray(properties)) {
    const wrongIndex = properties.some(
      (property) => isObject(property) && property.type === 'group' && property.group_type_index !== groupTypeIndex,
    );
    if (wrongIndex) throw validationError('Invalid group type index for feature flag condition.');
  }
  const group = { ...condition, properties, variant: null };
  try {
    const filters = await validateFilters(
      { groups: [group], aggregation_group_type_index: groupTypeIndex },
      { isCreate: true, flagId: null, flagKey: null, lookup: flagLookup(pool, projectId) },
    );
    return filters.groups?.[0]?.properties ?? [];
  } catch (error) {
    if (error instanceof ApiError && error.attr === 'filters') {
      throw new ApiError(error.status, error.type, error.code, error.message, 'condition');
    }
    throw error;
  }
}

export async function userBlastRadius(pool: Pool, flagCache: FlagCache, projectId: number, body: BlastRadiusBody): Promise<BlastRadius> {
  const condition = body.condition;
  if (condition === undefined || condition === null) throw validationError('Missing condition for which to get blast radius');
  if (!isObject(condition)) throw validationError('The condition must be an object with properties.', 'condition');
  const groupTypeIndex = body.group_type_index ?? null;
  const properties = await conditionProperties(pool, projectId, condition, groupTypeIndex);

  const flags = (await flagCache.project(projectId)).all().map((flag) => flag.record);
  const matches: Matcher = conditionMatcher(properties, groupTypeIndex, flags);
  const shared = await sharedFor(pool, projectId);
  let total = 0;
  let affected = 0;
  if (groupTypeIndex === null) {
    for await (const batch of personSubjects(pool, projectId, shared)) {
      total += batch.length;
      for (const { ctx } of batch) if (matches(ctx)) affected += 1;
    }
  } else {
    for await (const batch of groupSubjects(pool, projectId, groupTypeIndex, shared)) {
      total += batch.length;
      for (const ctx of batch) if (matches(ctx)) affected += 1;
    }
  }
  return { users_affected: Math.min(affected, total), total_users: total };
}
