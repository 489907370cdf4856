import type { Membership } from '../accounts/auth/principal.ts';
import { isoUtc } from '../kernel/time.ts';
import { displayFilters, isSimpleFlag, simpleRolloutPercentage } from './derive.ts';
import type { FlagRecord } from './record.ts';
import type { FlagResponse } from './schemas.ts';
import { flagStatus } from './status.ts';

/** Who is looking: decides `user_access_level` and `can_edit`. */
export interface FlagViewer {
  userId: number;
  organizationLevel: Membership['level'] | null;
}

/** The fields that depend on who asks and when. */
type ViewFields = Pick<FlagResponse, 'status' | 'can_edit' | 'user_access_level'>;
/** Everything else: the same for every caller, so it can be serialised once and cached. */
export type FlagBody = Omit<FlagResponse, keyof ViewFields>;

/** Creators and organization admins manage a flag; every other member may edit it (PostHog's default). */
function accessLevel(flag: FlagRecord, viewer: FlagViewer): 'manager' | 'editor' {
  if (viewer.organizationLevel === 'admin' || viewer.organizationLevel === 'owner') return 'manager';
  return flag.created_by_id === viewer.userId ? 'manager' : 'editor';
}

function viewFields(flag: FlagRecord, viewer: FlagViewer, now: Date): ViewFields {
  return {
    status: flagStatus(flag, now).status,
    // Both levels a member can hold here (manager, editor) may edit.
    can_edit: true,
    user_access_level: accessLevel(flag, viewer),
  };
}

export function presentFlagBody(flag: FlagRecord): FlagBody {
  const filters = displayFilters(flag.filters);
  return {
    id: flag.id,
    name: flag.name,
    key: flag.key,
    filters,
    deleted: flag.deleted,
    active: flag.active,
    archived: flag.archived,
    created_by: flag.created_by,
    created_at: isoUtc(flag.created_at),
    updated_at: isoUtc(flag.updated_at),
    version: flag.version,
    last_modified_by: flag.last_modified_by,
    is_simple_flag: isSimpleFlag(filters),
    rollout_percentage: simpleRolloutPercentage(filters),
    ensure_experience_continuity: flag.ensure_experience_continuity,
    experiment_set: flag.experiment_set,
    surveys: [],
    features: [],
    rollback_conditions: flag.rollback_conditions ?? null,
    performed_rollback: flag.performed_rollback,
    tags: flag.tags,
    evaluation_tags: flag.evaluation_tags,
    usage_dashboard: flag.usage_dashboard_id,
    analytics_dashboards: flag.analytics_dashboards,
    has_enriched_analytics: flag.has_enriched_analytics,
    creation_context: flag.creation_context,
    is_remote_configuration: flag.is_remote_configuration,
    has_encrypted_payloads: flag.has_encrypted_payloads,
    evaluation_runtime: flag.evaluation_runtime,
    bucketing_identifier: flag.bucketing_identifier,
    last_called_at: isoUtc(flag.last_called_at),
    _create_in_folder: flag.create_in_folder,
    _should_create_usage_dashboard: flag.should_create_usage_dashboard,
  };
}

export function presentFlag(flag: FlagRecord, viewer: FlagViewer, now: Date = new Date()): FlagResponse {
  return { ...presentFlagBody(flag), ...viewFields(flag, viewer, now) };
}

/** A flag with its caller-independent JSON rendered once, open at the end for the view fields. */
export interface RenderedFlag {
  record: FlagRecord;
  openJson: string;
}

export function renderFlag(record: FlagRecord): RenderedFlag {
  const json = JSON.stringify(presentFlagBody(record));
  return { record, openJson: json.slice(0, -1) };
}

/** The flag's JSON for this caller now: the cached body plus status and access fields. */
export function flagJson(flag: RenderedFlag, viewer: FlagViewer, now: Date): string {
  const view = viewFields(flag.record, viewer, now);
  return `${flag.openJson},"status":"${view.status}","can_edit":${view.can_edit},"user_access_level":"${view.user_access_level}"}`;
}
