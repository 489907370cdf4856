import { isoUtc } from '../../kernel/time.ts';
import { KIND_OF_NUMBER } from './list-query.ts';
import type { PropertyDefinition } from './schemas.ts';
import type { PropertyRecord } from './store.ts';

/** PostHog's enterprise property-definition body, plus `type` and `group_type_index`. */
export function presentProperty(row: PropertyRecord): PropertyDefinition {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? '',
    tags: row.tags,
    is_numerical: row.is_numerical,
    updated_at: isoUtc(row.updated_at),
    updated_by: row.updated_by,
    is_seen_on_filtered_events: row.is_seen_on_filtered_events,
    property_type: row.property_type,
    verified: row.verified,
    verified_at: isoUtc(row.verified_at),
    verified_by: row.verified_by,
    hidden: row.hidden,
    type: KIND_OF_NUMBER[row.type],
    group_type_index: row.group_type_index,
  };
}
