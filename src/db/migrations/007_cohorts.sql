-- Cohorts: dynamic ones hold person-property groups in `filters` ({"properties": {"type": "AND"|"OR",
-- "values": [...]}}); static ones list their members in cohort_people.
CREATE TABLE cohorts (
  id                  serial PRIMARY KEY,
  project_id          integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name                text NOT NULL DEFAULT '',
  description         text NOT NULL DEFAULT '',
  filters             jsonb NOT NULL DEFAULT '{}'::jsonb,
  groups              jsonb NOT NULL DEFAULT '[]'::jsonb,
  is_static           boolean NOT NULL DEFAULT false,
  is_calculating      boolean NOT NULL DEFAULT false,
  deleted             boolean NOT NULL DEFAULT false,
  count               integer,
  version             integer NOT NULL DEFAULT 1,
  last_calculation    timestamptz,
  errors_calculating  integer NOT NULL DEFAULT 0,
  created_by_id       integer REFERENCES users(id) ON DELETE SET NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cohorts_project_idx ON cohorts (project_id, id);

CREATE TABLE cohort_people (
  cohort_id  integer NOT NULL REFERENCES cohorts(id) ON DELETE CASCADE,
  person_id  bigint NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
  PRIMARY KEY (cohort_id, person_id)
);
CREATE INDEX cohort_people_person_idx ON cohort_people (person_id);

-- ensure_experience_continuity: the hash key a person keeps for a flag once it was first evaluated.
CREATE TABLE feature_flag_hash_key_overrides (
  project_id        integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  person_id         bigint NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
  feature_flag_key  text NOT NULL,
  hash_key          text NOT NULL,
  PRIMARY KEY (project_id, person_id, feature_flag_key)
);
