CREATE TABLE organizations (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name        text NOT NULL,
  slug        text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id                  serial PRIMARY KEY,
  uuid                uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  distinct_id         text NOT NULL UNIQUE,
  first_name          text NOT NULL DEFAULT '',
  last_name           text NOT NULL DEFAULT '',
  email               text NOT NULL UNIQUE,
  is_email_verified   boolean,
  role_at_organization text,
  hedgehog_config     jsonb,
  current_organization_id uuid REFERENCES organizations(id),
  current_project_id  integer,
  created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organization_memberships (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id         integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  level           text NOT NULL CHECK (level IN ('member', 'admin', 'owner')),
  joined_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);

CREATE TABLE projects (
  id                serial PRIMARY KEY,
  organization_id   uuid NOT NULL REFERENCES organizations(id),
  name              text NOT NULL,
  api_token         text NOT NULL UNIQUE,
  -- The secret token authenticates flag-definition reads: stored hashed, shown once at creation.
  secret_token_hash text NOT NULL UNIQUE,
  secret_token_mask text NOT NULL,
  timezone          text NOT NULL DEFAULT 'UTC',
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_organization_idx ON projects (organization_id, id);

ALTER TABLE users ADD CONSTRAINT users_current_project_fk
  FOREIGN KEY (current_project_id) REFERENCES projects(id) ON DELETE SET NULL;

CREATE TABLE personal_api_keys (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id               integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  label                 text NOT NULL,
  secure_value          text NOT NULL UNIQUE,   -- sha256 of the key, never the key itself
  mask_value            text NOT NULL,
  scopes                text[] NOT NULL,
  scoped_teams          integer[],
  scoped_organizations  uuid[],
  created_at            timestamptz NOT NULL DEFAULT now(),
  last_used_at          timestamptz,
  last_rolled_at        timestamptz
);
CREATE INDEX personal_api_keys_user_idx ON personal_api_keys (user_id, created_at);

CREATE TABLE activity_log (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  scope       text NOT NULL,
  item_id     text NOT NULL,
  activity    text NOT NULL,
  user_id     integer REFERENCES users(id) ON DELETE SET NULL,
  is_system   boolean NOT NULL DEFAULT false,
  detail      jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX activity_log_scope_idx ON activity_log (project_id, scope, created_at DESC);
CREATE INDEX activity_log_item_idx ON activity_log (project_id, scope, item_id, created_at DESC);
