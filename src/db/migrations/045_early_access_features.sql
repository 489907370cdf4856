-- Early access features: a named feature in a release stage, linked to at most one flag. A linked
-- flag cannot be hard-deleted (RESTRICT), and a flag belongs to at most one feature.

CREATE TABLE early_access_features (
  id                 uuid PRIMARY KEY,
  project_id         integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  feature_flag_id    integer REFERENCES feature_flags(id) ON DELETE RESTRICT,
  name               text NOT NULL CHECK (char_length(name) <= 200),
  description        text NOT NULL DEFAULT '',
  stage              text NOT NULL CHECK (stage IN ('draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived')),
  documentation_url  text NOT NULL DEFAULT '' CHECK (char_length(documentation_url) <= 800),
  payload            jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_by_id      integer REFERENCES users(id) ON DELETE SET NULL,
  created_at         timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX early_access_features_flag_idx ON early_access_features (feature_flag_id) WHERE feature_flag_id IS NOT NULL;
CREATE INDEX early_access_features_project_idx ON early_access_features (project_id, stage, created_at);
