import type { UserSummary } from '../accounts/users/user-summary.ts';
import type { FlagFilters } from '../targeting/types.ts';

/** Keys of the flags a survey makes for itself (its targeting, internal and sampling flags) start with this. */
export const SURVEY_FLAG_PREFIX = 'survey-targeting-';

/** A flag as the store reads it: the row plus the joined creator, modifier and dashboard links. */
export interface FlagRecord {
  id: number;
  project_id: number;
  key: string;
  name: string;
  filters: FlagFilters;
  deleted: boolean;
  active: boolean;
  archived: boolean;
  created_by_id: number | null;
  created_by: UserSummary | null;
  last_modified_by: UserSummary | null;
  created_at: Date;
  updated_at: Date;
  version: number;
  ensure_experience_continuity: boolean | null;
  rollback_conditions: unknown;
  performed_rollback: boolean | null;
  tags: string[];
  evaluation_tags: string[];
  analytics_dashboards: number[];
  has_enriched_analytics: boolean | null;
  creation_context: string;
  is_remote_configuration: boolean | null;
  has_encrypted_payloads: boolean | null;
  evaluation_runtime: string;
  bucketing_identifier: string | null;
  last_called_at: Date | null;
  create_in_folder: string | null;
  should_create_usage_dashboard: boolean;
  usage_dashboard_id: number | null;
  owned_by_survey: boolean;
  /** Ids of the live experiments using the flag, ascending. */
  experiment_set: number[];
  /** Whether any experiment, deleted ones too, uses the flag. */
  has_experiment: boolean;
  /**
   * The project's flag change count this write committed at (flag_change_counters): orders the
   * writes of a project, whichever process made them. Set just before COMMIT.
   */
  change_seq: number;
}

/** The columns a create or update writes. */
export interface FlagValues {
  key: string;
  name: string;
  filters: FlagFilters;
  deleted: boolean;
  active: boolean;
  archived: boolean;
  created_at: Date;
  ensure_experience_continuity: boolean | null;
  rollback_conditions: unknown;
  performed_rollback: boolean | null;
  tags: string[];
  evaluation_tags: string[];
  has_enriched_analytics: boolean | null;
  creation_context: string;
  is_remote_configuration: boolean | null;
  has_encrypted_payloads: boolean | null;
  evaluation_runtime: string;
  bucketing_identifier: string | null;
  last_called_at: Date | null;
  create_in_folder: string | null;
  should_create_usage_dashboard: boolean;
}

/** The writable columns of a stored flag: where an update starts from. */
export function flagValuesOf(flag: FlagRecord): FlagValues {
  return {
    key: flag.key,
    name: flag.name,
    filters: flag.filters,
    deleted: flag.deleted,
    active: flag.active,
    archived: flag.archived,
    created_at: flag.created_at,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    rollback_conditions: flag.rollback_conditions,
    performed_rollback: flag.performed_rollback,
    tags: flag.tags,
    evaluation_tags: flag.evaluation_tags,
    has_enriched_analytics: flag.has_enriched_analytics,
    creation_context: flag.creation_context,
    is_remote_configuration: flag.is_remote_configuration,
    has_encrypted_payloads: flag.has_encrypted_payloads,
    evaluation_runtime: flag.evaluation_runtime,
    bucketing_identifier: flag.bucketing_identifier,
    last_called_at: flag.last_called_at,
    create_in_folder: flag.create_in_folder,
    should_create_usage_dashboard: flag.should_create_usage_dashboard,
  };
}
