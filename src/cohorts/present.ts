import { isoUtc } from '../kernel/time.ts';
import { hasBehavioralFilters } from './filters.ts';
import type { CohortPerson, CohortResponse } from './schemas.ts';
import type { CohortRecord, MemberRow } from './store.ts';

export function cohortType(cohort: Pick<CohortRecord, 'is_static' | 'filters'>): 'static' | 'behavioral' | 'person_property' {
  if (cohort.is_static) return 'static';
  return hasBehavioralFilters(cohort.filters) ? 'behavioral' : 'person_property';
}

/** PostHog's cohort shape. A cohort without criteria shows `filters: null`. */
export function presentCohort(cohort: CohortRecord): CohortResponse {
  return {
    id: cohort.id,
    name: cohort.name,
    description: cohort.description,
    groups: [],
    deleted: cohort.deleted,
    filters: 'properties' in cohort.filters ? cohort.filters : null,
    query: null,
    version: cohort.version,
    pending_version: null,
    is_calculating: cohort.is_calculating,
    created_by: cohort.created_by,
    created_at: isoUtc(cohort.created_at),
    last_calculation: isoUtc(cohort.last_calculation),
    errors_calculating: cohort.errors_calculating,
    last_error_message: null,
    count: cohort.count,
    is_static: cohort.is_static,
    cohort_type: cohortType(cohort),
    experiment_set: [],
  };
}

// PostHog's default display-name properties, in its order.
const NAME_PROPERTIES = ['email', 'Email', 'name', 'Name', 'username', 'Username', 'UserName'];

/** A member as PostHog's cohort persons endpoint lists it. */
export function presentMember(row: MemberRow): CohortPerson {
  const properties = row.properties ?? {};
  const named = NAME_PROPERTIES.map((key) => properties[key]).find((value) => typeof value === 'string' && value.trim() !== '');
  return {
    id: row.uuid,
    uuid: row.uuid,
    type: 'person',
    name: typeof named === 'string' ? named : (row.distinct_ids[0] ?? row.uuid),
    distinct_ids: row.distinct_ids,
    properties,
    created_at: isoUtc(row.created_at),
    last_seen_at: null,
    is_identified: row.is_identified,
    matched_recordings: [],
    value_at_data_point: null,
  };
}
