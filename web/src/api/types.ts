/** The API's answers, as the console reads them (see /api/schema/ for the full documents). */
import type { FlagFilters } from '../../../src/targeting/types.ts';

export type { FlagFilters };

export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface UserSummary {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
}

export interface TeamSummary {
  id: number;
  name: string;
  api_token: string;
  organization: string;
}

export interface OrganizationSummary {
  id: string;
  name: string;
  membership_level: number | null;
}

export interface Me extends UserSummary {
  date_joined: string;
  /** Absent before the session backend: then the person signed in with a key. */
  has_password?: boolean;
  organization: (OrganizationSummary & { teams?: TeamSummary[] }) | null;
  organizations: OrganizationSummary[];
  team: TeamSummary | null;
  teams?: TeamSummary[];
}

export interface Project {
  id: number;
  name: string;
  organization: string;
  api_token: string;
  secret_api_token: string | null;
  created_at: string;
}

export type FlagStatus = 'active' | 'stale' | 'inactive' | 'deleted' | 'unknown';
export type EvaluationRuntime = 'server' | 'client' | 'all' | 'both';

export interface FeatureFlag {
  id: number;
  key: string;
  name: string;
  filters: FlagFilters;
  deleted: boolean;
  active: boolean;
  created_by: UserSummary | null;
  created_at: string;
  updated_at: string;
  version: number;
  last_modified_by: UserSummary | null;
  is_simple_flag: boolean;
  rollout_percentage: number | null;
  ensure_experience_continuity: boolean | null;
  tags: string[];
  evaluation_tags: string[];
  usage_dashboard: number | null;
  status: FlagStatus;
  evaluation_runtime: EvaluationRuntime;
  bucketing_identifier: string | null;
  last_called_at: string | null;
  is_remote_configuration: boolean | null;
  can_edit: boolean;
  surveys: Array<{ id: string; name: string }>;
}

export interface ActivityChange {
  type: string;
  action: 'created' | 'changed' | 'deleted' | string;
  field: string | null;
  before: unknown;
  after: unknown;
}

export interface ActivityEntry {
  id: string;
  activity: string;
  scope: string;
  item_id: string;
  detail: { name: string | null; changes: ActivityChange[] | null; short_id?: string | null };
  created_at: string;
  is_system: boolean;
  user: UserSummary | null;
}

export interface ActivityPage {
  results: ActivityEntry[];
  next: string | null;
  previous: string | null;
  total_count: number;
}

export interface EvaluationReason {
  value: boolean | string;
  evaluation: { reason: string; condition_index: number | null; description?: string };
}

export interface GroupType {
  group_type: string;
  group_type_index: number;
  name_singular: string | null;
  name_plural: string | null;
}

export interface Cohort {
  id: number;
  name: string;
  description: string;
  filters: { properties?: CohortGroup } | null;
  is_static: boolean;
  is_calculating: boolean;
  count: number | null;
  created_at: string;
  created_by: UserSummary | null;
  last_calculation: string | null;
  deleted: boolean;
  version: number;
}

export interface CohortProperty {
  type: string;
  key: string;
  value?: unknown;
  operator?: string | null;
  negation?: boolean;
  [extra: string]: unknown;
}

export interface CohortGroup {
  type: 'AND' | 'OR';
  values: Array<CohortGroup | CohortProperty>;
}

export interface Person {
  id: string;
  uuid: string;
  name: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: string;
}

export interface PersonalApiKey {
  id: string;
  label: string;
  mask_value: string;
  scopes: string[];
  scoped_teams: number[] | null;
  scoped_organizations: string[] | null;
  created_at: string;
  last_used_at: string | null;
  value?: string;
}

export interface Member {
  id: string;
  user: UserSummary;
  level: number;
  joined_at: string;
  updated_at: string;
  /** Has signed in with single sign-on. */
  has_social_auth: boolean;
  has_password: boolean;
}

export interface ResetLink {
  url: string;
  expires_at: string;
}

/** What the sign-in page offers (`/api/login/methods/`). */
export interface LoginMethods {
  sso: { button_text: string; login_url: string; enforced_domains: string[] } | null;
  password_reset_by_email: boolean;
}

export interface Invite {
  id: string;
  target_email: string;
  first_name: string;
  level: number;
  is_expired: boolean;
  created_at: string;
  invite_url: string;
  emailing_attempt_made: boolean;
}

export interface TrendSeries {
  label: string;
  breakdown_value: string | null;
  count: number;
  data: number[];
  days: string[];
}

export interface Dashboard {
  id: number;
  name: string;
  tiles: Array<{ id: number; insight: { id: number; name: string; result: TrendSeries[] } | null }>;
}
