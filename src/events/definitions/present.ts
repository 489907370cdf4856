import { isoUtc } from '../../kernel/time.ts';
import type { EventDefinition } from './schemas.ts';
import type { DefinitionRecord } from './store.ts';

/**
 * PostHog's enterprise body (its field order; the newer enforcement_mode and primary_property after
 * hidden). A stored NULL description reads as "" (what PostHog shows once its enterprise row
 * exists); NULL default_columns read as [].
 */
export function presentDefinition(row: DefinitionRecord): EventDefinition {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    description: row.description ?? '',
    tags: row.tags,
    created_at: isoUtc(row.created_at),
    updated_at: isoUtc(row.updated_at),
    updated_by: row.updated_by,
    last_seen_at: isoUtc(row.last_seen_at),
    verified: row.verified,
    verified_at: isoUtc(row.verified_at),
    verified_by: row.verified_by,
    hidden: row.hidden,
    enforcement_mode: row.enforcement_mode,
    primary_property: row.primary_property,
    is_action: false,
    post_to_slack: false,
    default_columns: row.default_columns ?? [],
  };
}
