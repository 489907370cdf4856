import { displayFilters } from '../../flags/derive.ts';
import type { FlagRecord } from '../../flags/record.ts';
import type { FlagFilters } from '../../flags/types.ts';
import { sdkRuntime } from '../../sdk/definitions.ts';
import type { MinimalFlag } from '../schemas.ts';
import { normalizeOwnedFilters } from './owned.ts';

/** Filters as PostHog's flag serializer shows them: `aggregation_group_type_index` (null if unset) at the top and in each group. */
export function presentedFilters(filters: FlagFilters | null): FlagFilters {
  return normalizeOwnedFilters(displayFilters(filters));
}

/** The nested flag object of a survey (seed "Flag summary" plus PostHog's `evaluation_contexts`). */
export function minimalFlag(flag: FlagRecord): MinimalFlag {
  return {
    id: flag.id,
    team_id: flag.project_id,
    name: flag.name,
    key: flag.key,
    filters: presentedFilters(flag.filters),
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensure_experience_continuity ?? false,
    has_encrypted_payloads: flag.has_encrypted_payloads ?? false,
    version: flag.version,
    evaluation_runtime: sdkRuntime(flag.evaluation_runtime),
    evaluation_contexts: flag.evaluation_tags,
    evaluation_tags: flag.evaluation_tags,
    bucketing_identifier: flag.bucketing_identifier ?? 'distinct_id',
  };
}
