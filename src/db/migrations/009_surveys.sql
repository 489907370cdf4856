-- Surveys, with PostHog's columns. Ids are UUID v7 (time-ordered, like PostHog's UUIDT).
CREATE TABLE surveys (
  id                                  uuid PRIMARY KEY,
  project_id                          integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name                                text NOT NULL,
  description                         text NOT NULL DEFAULT '',
  type                                text NOT NULL,
  schedule                            text DEFAULT 'once',
  -- The user's flag: never modified or deleted by survey operations.
  linked_flag_id                      integer REFERENCES feature_flags(id) ON DELETE SET NULL,
  linked_insight_id                   integer,
  -- Flags the survey owns (feature_flags.owned_by_survey), soft-deleted with the survey.
  targeting_flag_id                   integer REFERENCES feature_flags(id) ON DELETE SET NULL,
  internal_targeting_flag_id          integer REFERENCES feature_flags(id) ON DELETE SET NULL,
  internal_response_sampling_flag_id  integer REFERENCES feature_flags(id) ON DELETE SET NULL,
  questions                           jsonb,
  conditions                          jsonb,
  appearance                          jsonb,
  translations                        jsonb,
  form_content                        jsonb,
  created_at                          timestamptz NOT NULL DEFAULT now(),
  created_by_id                       integer REFERENCES users(id) ON DELETE SET NULL,
  updated_at                          timestamptz NOT NULL DEFAULT now(),
  start_date                          timestamptz,
  end_date                            timestamptz,
  archived                            boolean NOT NULL DEFAULT false,
  responses_limit                     integer,
  iteration_count                     integer,
  iteration_frequency_days            integer,
  -- NULL and '{}' differ: NULL = iterations set but no start date yet.
  iteration_start_dates               timestamptz[],
  current_iteration                   integer,
  current_iteration_start_date        timestamptz,
  response_sampling_start_date        timestamptz,
  response_sampling_interval_type     text DEFAULT 'week',
  response_sampling_interval          integer,
  response_sampling_limit             integer,
  response_sampling_daily_limits      jsonb,
  enable_partial_responses            boolean DEFAULT false,
  enable_iframe_embedding             boolean NOT NULL DEFAULT false,
  create_in_folder                    text,
  -- The local summaries' caches (summary_headline, summarize_responses).
  headline_summary                    text,
  headline_response_count             integer,
  question_summaries                  jsonb
);
CREATE UNIQUE INDEX surveys_project_name_idx ON surveys (project_id, name);
CREATE INDEX surveys_project_list_idx ON surveys (project_id, created_at DESC, id DESC);

-- A response is the uuid of its (latest) `survey sent` event.
CREATE TABLE survey_response_archives (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id     integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  survey_id      uuid NOT NULL REFERENCES surveys(id) ON DELETE CASCADE,
  response_uuid  uuid NOT NULL,
  archived_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, response_uuid)
);
CREATE INDEX survey_response_archives_survey_idx ON survey_response_archives (survey_id);
