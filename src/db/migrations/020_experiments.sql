-- Experiments: an A/B test over one multivariate feature flag (PostHog's experiments resource).
CREATE TABLE experiments (
  id                               serial PRIMARY KEY,
  project_id                       integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name                             text NOT NULL,
  description                      text,
  start_date                       timestamptz,
  end_date                         timestamptz,
  feature_flag_id                  integer NOT NULL REFERENCES feature_flags(id),
  parameters                       jsonb NOT NULL DEFAULT '{}'::jsonb,
  filters                          jsonb NOT NULL DEFAULT '{}'::jsonb,
  secondary_metrics                jsonb NOT NULL DEFAULT '[]'::jsonb,
  archived                         boolean NOT NULL DEFAULT false,
  deleted                          boolean NOT NULL DEFAULT false,
  created_by_id                    integer REFERENCES users(id) ON DELETE SET NULL,
  created_at                       timestamptz NOT NULL DEFAULT now(),
  updated_at                       timestamptz NOT NULL DEFAULT now(),
  type                             text NOT NULL DEFAULT 'product',
  exposure_criteria                jsonb,
  metrics                          jsonb NOT NULL DEFAULT '[]'::jsonb,
  metrics_secondary                jsonb NOT NULL DEFAULT '[]'::jsonb,
  stats_config                     jsonb,
  conclusion                       text,
  conclusion_comment               text,
  primary_metrics_ordered_uuids    jsonb,
  secondary_metrics_ordered_uuids  jsonb,
  scheduling_config                jsonb,
  only_count_matured_users         boolean NOT NULL DEFAULT false,
  excluded_variants                jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- Bumped by every change that alters what the ingestion-time state means (dates, exposure
  -- criteria, metrics, variants): results cached under an older generation are not served.
  state_generation                 integer NOT NULL DEFAULT 0
);
CREATE INDEX experiments_project_idx ON experiments (project_id, created_at DESC, id DESC) WHERE NOT deleted;
CREATE INDEX experiments_flag_idx ON experiments (feature_flag_id);
-- What ingestion reads on every batch: the project's launched experiments.
CREATE INDEX experiments_launched_idx ON experiments (project_id) WHERE start_date IS NOT NULL AND NOT deleted;
