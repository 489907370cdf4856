-- The event store. One row per accepted event; a retried event (same uuid) is stored once.
-- Reads it serves: survey statistics (survey shown|sent|dismissed by $survey_id), flag usage
-- ($feature_flag_called by $feature_flag), event-definition metrics (by event name and time).
CREATE TABLE events (
  project_id   integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  uuid         uuid NOT NULL,
  event        text NOT NULL,
  distinct_id  text NOT NULL,
  person_id    uuid,
  properties   jsonb NOT NULL DEFAULT '{}'::jsonb,
  timestamp    timestamptz NOT NULL,
  inserted_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, uuid)
);
CREATE INDEX events_name_time_idx ON events (project_id, event, timestamp);
CREATE INDEX events_flag_called_idx ON events (project_id, (properties->>'$feature_flag'), timestamp)
  WHERE event = '$feature_flag_called';
CREATE INDEX events_survey_idx ON events (project_id, (properties->>'$survey_id'), timestamp)
  WHERE event IN ('survey shown', 'survey sent', 'survey dismissed');

CREATE TABLE persons (
  id             bigserial PRIMARY KEY,
  uuid           uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  project_id     integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  properties     jsonb NOT NULL DEFAULT '{}'::jsonb,
  is_identified  boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  version        integer NOT NULL DEFAULT 0
);
CREATE INDEX persons_project_idx ON persons (project_id, created_at DESC, id DESC);

CREATE TABLE person_distinct_ids (
  project_id   integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  distinct_id  text NOT NULL,
  person_id    bigint NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
  PRIMARY KEY (project_id, distinct_id)
);
CREATE INDEX person_distinct_ids_person_idx ON person_distinct_ids (person_id);

CREATE TABLE group_type_mappings (
  project_id        integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  group_type        text NOT NULL,
  group_type_index  smallint NOT NULL CHECK (group_type_index BETWEEN 0 AND 4),
  name_singular     text,
  name_plural       text,
  PRIMARY KEY (project_id, group_type),
  UNIQUE (project_id, group_type_index)
);

CREATE TABLE groups (
  project_id        integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  group_type_index  smallint NOT NULL CHECK (group_type_index BETWEEN 0 AND 4),
  group_key         text NOT NULL,
  group_properties  jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, group_type_index, group_key)
);
