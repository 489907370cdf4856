CREATE TABLE dashboards (
  id              serial PRIMARY KEY,
  project_id      integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name            text NOT NULL,
  description     text NOT NULL DEFAULT '',
  created_by_id   integer REFERENCES users(id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  deleted         boolean NOT NULL DEFAULT false
);
CREATE INDEX dashboards_project_idx ON dashboards (project_id, id);

CREATE TABLE feature_flags (
  id                            serial PRIMARY KEY,
  project_id                    integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  key                           text NOT NULL,
  name                          text NOT NULL DEFAULT '',
  filters                       jsonb NOT NULL DEFAULT '{}'::jsonb,
  deleted                       boolean NOT NULL DEFAULT false,
  active                        boolean NOT NULL DEFAULT true,
  created_by_id                 integer REFERENCES users(id) ON DELETE SET NULL,
  last_modified_by_id           integer REFERENCES users(id) ON DELETE SET NULL,
  created_at                    timestamptz NOT NULL DEFAULT now(),
  updated_at                    timestamptz NOT NULL DEFAULT now(),
  version                       integer NOT NULL DEFAULT 1,
  ensure_experience_continuity  boolean,
  rollback_conditions           jsonb,
  performed_rollback            boolean,
  tags                          text[] NOT NULL DEFAULT '{}',
  evaluation_tags               text[] NOT NULL DEFAULT '{}',
  has_enriched_analytics        boolean,
  creation_context              text NOT NULL DEFAULT 'feature_flags',
  is_remote_configuration       boolean,
  has_encrypted_payloads        boolean,
  evaluation_runtime            text NOT NULL DEFAULT 'all',
  bucketing_identifier          text,
  last_called_at                timestamptz,
  create_in_folder              text,
  should_create_usage_dashboard boolean NOT NULL DEFAULT true,
  usage_dashboard_id            integer REFERENCES dashboards(id) ON DELETE SET NULL,
  -- Set for flags a survey owns (targeting, internal targeting, sampling): hidden from the list.
  owned_by_survey               boolean NOT NULL DEFAULT false
);
-- Keys are unique among live flags only: a soft-deleted flag keeps its row and key.
CREATE UNIQUE INDEX feature_flags_live_key_idx ON feature_flags (project_id, key) WHERE NOT deleted;
CREATE INDEX feature_flags_list_idx ON feature_flags (project_id, created_at DESC, id DESC) WHERE NOT deleted;
CREATE INDEX feature_flags_tags_idx ON feature_flags USING gin (tags);

CREATE TABLE feature_flag_dashboards (
  feature_flag_id integer NOT NULL REFERENCES feature_flags(id) ON DELETE CASCADE,
  dashboard_id    integer NOT NULL REFERENCES dashboards(id) ON DELETE CASCADE,
  PRIMARY KEY (feature_flag_id, dashboard_id)
);
