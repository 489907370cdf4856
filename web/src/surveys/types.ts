/** The survey API's answers, as the console reads them. */
import type { FlagFilters, UserSummary } from '../api/types.ts';

export type Json = Record<string, unknown>;

export interface MinimalFlag {
  id: number;
  key: string;
  name: string;
  filters: FlagFilters;
  active: boolean;
  deleted: boolean;
}

export interface Survey {
  id: string;
  name: string;
  description: string;
  type: string;
  schedule: string | null;
  linked_flag: MinimalFlag | null;
  linked_flag_id?: number | null;
  targeting_flag: MinimalFlag | null;
  internal_targeting_flag: MinimalFlag | null;
  questions: unknown;
  conditions: unknown;
  appearance: unknown;
  created_at: string;
  created_by: UserSummary | null;
  start_date: string | null;
  end_date: string | null;
  archived: boolean;
  responses_limit: number | null;
  iteration_count: number | null;
  iteration_frequency_days: number | null;
  iteration_start_dates: Array<string | null> | null;
  current_iteration: number | null;
  current_iteration_start_date: string | null;
  response_sampling_start_date: string | null;
  response_sampling_interval_type: string | null;
  response_sampling_interval: number | null;
  response_sampling_limit: number | null;
  response_sampling_daily_limits: string | null;
  enable_partial_responses: boolean | null;
  enable_iframe_embedding?: boolean;
  translations?: unknown;
}

export interface EventStats {
  total_count: number;
  unique_persons: number;
  first_seen: string | null;
  last_seen: string | null;
  unique_persons_only_seen: number;
  total_count_only_seen: number;
}

export type SurveyEventName = 'survey shown' | 'survey dismissed' | 'survey sent';

export interface SurveyStats {
  stats: Partial<Record<SurveyEventName, EventStats>>;
  rates: { response_rate: number; dismissal_rate: number; unique_users_response_rate: number; unique_users_dismissal_rate: number };
  survey_id: string;
  start_date: string | null;
  end_date: string | null;
}

/** One response (`GET …/surveys/{id}/responses/`): answers keyed by question id. */
export interface SurveyResponseItem {
  uuid: string;
  distinct_id: string;
  person: { id: string; properties?: Json } | null;
  timestamp: string;
  answers: Record<string, unknown>;
  archived: boolean;
  partial: boolean;
}

export interface ResponsesPage {
  results: SurveyResponseItem[];
  next: string | null;
}
