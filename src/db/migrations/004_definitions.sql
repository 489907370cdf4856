CREATE TABLE event_definitions (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id        integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name              text NOT NULL CHECK (char_length(name) <= 400),
  created_at        timestamptz,
  last_seen_at      timestamptz,
  owner_id          integer REFERENCES users(id) ON DELETE SET NULL,
  description       text,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by_id     integer REFERENCES users(id) ON DELETE SET NULL,
  verified          boolean NOT NULL DEFAULT false,
  verified_at       timestamptz,
  verified_by_id    integer REFERENCES users(id) ON DELETE SET NULL,
  hidden            boolean NOT NULL DEFAULT false,
  default_columns   text[],
  tags              text[] NOT NULL DEFAULT '{}',
  enforcement_mode  text NOT NULL DEFAULT 'allow',
  primary_property  text,
  UNIQUE (project_id, name)
);
CREATE INDEX event_definitions_tags_idx ON event_definitions USING gin (tags);

-- type: 1 event property, 2 person property, 3 group property (PostHog's numbering).
CREATE TABLE property_definitions (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id        integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name              text NOT NULL CHECK (char_length(name) <= 400),
  type              smallint NOT NULL DEFAULT 1 CHECK (type IN (1, 2, 3)),
  group_type_index  smallint CHECK (group_type_index BETWEEN 0 AND 4),
  property_type     text CHECK (property_type IN ('String', 'Numeric', 'Boolean', 'DateTime', 'Duration', 'Object')),
  is_numerical      boolean NOT NULL DEFAULT false,
  description       text,
  tags              text[] NOT NULL DEFAULT '{}',
  verified          boolean NOT NULL DEFAULT false,
  verified_at       timestamptz,
  verified_by_id    integer REFERENCES users(id) ON DELETE SET NULL,
  hidden            boolean NOT NULL DEFAULT false,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  updated_by_id     integer REFERENCES users(id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX property_definitions_unique_idx
  ON property_definitions (project_id, type, COALESCE(group_type_index, -1), name);

-- Which properties each event has been seen with.
CREATE TABLE event_properties (
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  event       text NOT NULL,
  property    text NOT NULL,
  PRIMARY KEY (project_id, event, property)
);

CREATE TABLE schema_property_groups (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id     integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  name           text NOT NULL CHECK (char_length(name) <= 400),
  description    text NOT NULL DEFAULT '',
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  created_by_id  integer REFERENCES users(id) ON DELETE SET NULL,
  UNIQUE (project_id, name)
);

CREATE TABLE schema_property_group_properties (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  property_group_id     uuid NOT NULL REFERENCES schema_property_groups(id) ON DELETE CASCADE,
  name                  text NOT NULL CHECK (char_length(name) <= 400),
  property_type         text NOT NULL,
  is_required           boolean NOT NULL DEFAULT false,
  is_optional_in_types  boolean NOT NULL DEFAULT false,
  description           text NOT NULL DEFAULT '',
  created_at            timestamptz NOT NULL DEFAULT now(),
  UNIQUE (property_group_id, name)
);

CREATE TABLE event_schemas (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_definition_id  uuid NOT NULL REFERENCES event_definitions(id) ON DELETE CASCADE,
  property_group_id    uuid NOT NULL REFERENCES schema_property_groups(id) ON DELETE CASCADE,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_definition_id, property_group_id)
);
