import type { Membership } from '../platform/auth/principal.ts';
import { isoUtc } from '../platform/time.ts';
import { displayFilters, isSimpleFlag, simpleRolloutPercentage } from './derive.ts';
import type { FlagRecord } from './record.ts';
import type { FlagResponse } from './schemas.ts';
import { flagStatus } from './status.ts';

/** Who is looking: decides `user_access_level` and `can_edit`. */
export interface FlagViewer {
  userId: number;
  organizationLevel: Membership['level'] | null;
}

/** Creators and organization admins manage a flag; every other member may edit it (PostHog's default). */
function accessLevel(flag: FlagRecord, viewer: FlagViewer): 'manager' | 'editor' {
  if (viewer.organizationLevel === 'admin' || viewer.organizationLevel === 'owner') return 'manager';
  return flag.created_by_id === viewer.userId ? 'manager' : 'editor';
}

export function presentFlag(flag: FlagRecord, viewer: FlagViewer, now: Date = new Date()): FlagResponse {
  const filters = displayFilters(flag.filters);
  const level = accessLevel(flag, viewer);
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: flag.deleted,
    active: flag.active,
    created_by: flag.created_by,
    created_at: isoUtc(flag.created_at),
    updated_at: isoUtc(flag.updated_at),
    version: flag.version,
    last_modified_by: flag.last_modified_by,
    is_simple_flag: isSimpleFlag(filters),
    rollout_percentage: simpleRolloutPercentage(filters),
    ensure_experience_continuity: flag.ensure_experience_continuity,
    experiment_set: [],
    surveys: [],
    features: [],
    rollback_conditions: flag.rollback_conditions ?? null,
    performed_rollback: flag.performed_rollback,
    can_edit: level === 'manager' || level === 'editor',
    tags: flag.tags,
    evaluation_tags: flag.evaluation_tags,
    usage_dashboard: flag.usage_dashboard_id,
    analytics_dashboards: flag.analytics_dashboards,
    has_enriched_analytics: flag.has_enriched_analytics,
    user_access_level: level,
    creation_context: flag.creation_context,
    is_remote_configuration: flag.is_remote_configuration,
    has_encrypted_payloads: flag.has_encrypted_payloads,
    status: flagStatus(flag, now).status,
    evaluation_runtime: flag.evaluation_runtime,
    bucketing_identifier: flag.bucketing_identifier,
    last_called_at: isoUtc(flag.last_called_at),
    _create_in_folder: flag.create_in_folder,
    _should_create_usage_dashboard: flag.should_create_usage_dashboard,
  };
}
