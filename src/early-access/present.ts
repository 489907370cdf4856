import type { FlagRecord } from '../flags/record.ts';
import type { FeatureRecord } from './record.ts';
import type { PublicFeatureRow } from './store.ts';

export function presentMinimalFlag(flag: FlagRecord) {
  return {
    id: flag.id,
    team_id: flag.project_id,
    name: flag.name,
    key: flag.key,
    filters: flag.filters as Record<string, unknown>,
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensure_experience_continuity ?? null,
  };
}

export function presentFeature(feature: FeatureRecord, flag: FlagRecord | null) {
  return {
    id: feature.id,
    feature_flag: flag ? presentMinimalFlag(flag) : null,
    name: feature.name,
    description: feature.description,
    stage: feature.stage,
    documentation_url: feature.documentation_url,
    payload: feature.payload,
    created_by: feature.created_by,
    created_at: feature.created_at.toISOString(),
  };
}

export function presentPublicFeature(row: PublicFeatureRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    stage: row.stage,
    documentationUrl: row.documentation_url,
    flagKey: row.flag_key,
    payload: row.payload,
    assignee: null,
  };
}
