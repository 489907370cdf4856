/** One-line descriptions of a flag for lists and headers. Pure. */
import type { FeatureFlag, FlagFilters } from '../api/types.ts';

export function variantCount(filters: FlagFilters): number {
  return filters.multivariate?.variants?.length ?? 0;
}

export function flagTypeLabel(flag: Pick<FeatureFlag, 'filters' | 'is_remote_configuration'>): string {
  if (flag.is_remote_configuration) return 'Remote config';
  const variants = variantCount(flag.filters);
  return variants > 0 ? `Multivariate · ${variants} variants` : 'Boolean';
}

/** "100% of all users", "50% of users matching 1 condition", "3 condition sets". */
export function releaseSummary(filters: FlagFilters): string {
  const groups = filters.groups ?? [];
  if (groups.length === 0) return 'No condition sets';
  if (groups.length > 1) return `${groups.length} condition sets`;
  const [group] = groups;
  const rollout = group.rollout_percentage ?? 100;
  const who = filters.aggregation_group_type_index !== null && filters.aggregation_group_type_index !== undefined ? 'groups' : 'users';
  const conditions = group.properties?.length ?? 0;
  const percent = `${Math.round(rollout * 100) / 100}%`;
  return conditions === 0 ? `${percent} of all ${who}` : `${percent} of ${who} matching ${conditions} condition${conditions === 1 ? '' : 's'}`;
}
