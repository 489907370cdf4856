import { displayFilters } from '../../flags/derive.ts';
import type { FlagRecord } from '../../flags/record.ts';
import type { FlagFilters } from '../../targeting/types.ts';
import { minimalFlagFields } from '../../sdk/definitions.ts';
import type { MinimalFlag } from '../schemas.ts';
import { normalizeOwnedFilters } from './owned.ts';

/** Filters as PostHog's flag serializer shows them: `aggregation_group_type_index` (null if unset) at the top and in each group. */
export function presentedFilters(filters: FlagFilters | null): FlagFilters {
  return normalizeOwnedFilters(displayFilters(filters));
}

/** The nested flag object of a survey (seed "Flag summary" plus PostHog's `evaluation_contexts`). */
export function minimalFlag(flag: FlagRecord): MinimalFlag {
  return minimalFlagFields(flag, presentedFilters(flag.filters));
}
