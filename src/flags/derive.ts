import type { FlagFilters, FlagGroup } from '../targeting/types.ts';

/**
 * Filters as the API shows them. Stored filters without `groups` (a flag created with no filters)
 * read as one group with no properties and no rollout: on for everyone.
 */
export function displayFilters(filters: FlagFilters | null): FlagFilters {
  if (filters && Array.isArray(filters.groups)) return filters;
  const properties = Array.isArray(filters?.properties) ? (filters.properties as FlagGroup['properties']) : [];
  return { groups: [{ properties, rollout_percentage: null }] };
}

/** One condition set, no properties, not a group flag. */
export function isSimpleFlag(filters: FlagFilters): boolean {
  const groups = filters.groups ?? [];
  return (
    groups.length === 1 &&
    (groups[0].properties ?? []).length === 0 &&
    (filters.aggregation_group_type_index ?? null) === null
  );
}

export function simpleRolloutPercentage(filters: FlagFilters): number | null {
  return isSimpleFlag(filters) ? (filters.groups![0].rollout_percentage ?? null) : null;
}

export function variantKeys(filters: FlagFilters): string[] {
  return (filters.multivariate?.variants ?? []).map((v) => v.key);
}

/**
 * Condition sets with a variant override first, otherwise in the order sent (a stable sort): the
 * stored order is then the evaluation order for the server and every SDK, and `condition_index`
 * refers to it.
 */
export function overridesFirst(filters: FlagFilters): FlagFilters {
  const groups = filters.groups;
  if (!groups || groups.length < 2) return filters;
  const withOverride = groups.filter((g) => g.variant);
  if (withOverride.length === 0 || withOverride.length === groups.length) return filters;
  return { ...filters, groups: [...withOverride, ...groups.filter((g) => !g.variant)] };
}
