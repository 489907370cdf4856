import type { UserSummary } from '../accounts/users/user-summary.ts';

/** A survey as the store reads it: the `surveys` row plus its creator. */
export interface SurveyRecord {
  id: string;
  project_id: number;
  name: string;
  description: string;
  type: string;
  schedule: string | null;
  linked_flag_id: number | null;
  linked_insight_id: number | null;
  targeting_flag_id: number | null;
  internal_targeting_flag_id: number | null;
  internal_response_sampling_flag_id: number | null;
  questions: unknown;
  conditions: unknown;
  appearance: unknown;
  translations: unknown;
  form_content: unknown;
  created_at: Date;
  created_by_id: number | null;
  created_by: UserSummary | null;
  updated_at: Date;
  start_date: Date | null;
  end_date: Date | null;
  archived: boolean;
  responses_limit: number | null;
  iteration_count: number | null;
  iteration_frequency_days: number | null;
  iteration_start_dates: Date[] | null;
  current_iteration: number | null;
  current_iteration_start_date: Date | null;
  response_sampling_start_date: Date | null;
  response_sampling_interval_type: string | null;
  response_sampling_interval: number | null;
  response_sampling_limit: number | null;
  response_sampling_daily_limits: unknown;
  enable_partial_responses: boolean | null;
  enable_iframe_embedding: boolean;
  create_in_folder: string | null;
  headline_summary: string | null;
  headline_response_count: number | null;
  question_summaries: unknown;
}

/** The event names a survey's responses travel as. */
export const SURVEY_SHOWN = 'survey shown';
export const SURVEY_DISMISSED = 'survey dismissed';
export const SURVEY_SENT = 'survey sent';

/** The activity-log scope of surveys. */
export const SURVEY_ACTIVITY_SCOPE = 'Survey';
