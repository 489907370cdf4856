-- Approval policies (per project and action) and the change requests they hold edits in.
CREATE TABLE approval_policies (
  id                           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id                   integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  action_key                   text NOT NULL,
  conditions                   jsonb NOT NULL DEFAULT '{}',
  approver_config              jsonb NOT NULL,
  allow_self_approve           boolean NOT NULL DEFAULT false,
  bypass_org_membership_levels jsonb NOT NULL DEFAULT '[]',
  bypass_roles                 jsonb NOT NULL DEFAULT '[]',
  expires_after_seconds        integer NOT NULL DEFAULT 1209600,
  enabled                      boolean NOT NULL DEFAULT true,
  created_by_id                integer REFERENCES users(id) ON DELETE SET NULL,
  created_at                   timestamptz NOT NULL DEFAULT now(),
  updated_at                   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, action_key)
);

CREATE TABLE change_requests (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id        integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  action_key        text NOT NULL,
  action_version    integer NOT NULL DEFAULT 1,
  resource_type     text NOT NULL,
  resource_id       text,
  intent            jsonb NOT NULL,
  intent_display    jsonb NOT NULL,
  policy_snapshot   jsonb NOT NULL,
  validation_status text NOT NULL DEFAULT 'valid',
  validation_errors jsonb,
  validated_at      timestamptz,
  state             text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'applied', 'rejected', 'expired', 'failed')),
  created_by_id     integer REFERENCES users(id) ON DELETE SET NULL,
  applied_by_id     integer REFERENCES users(id) ON DELETE SET NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  applied_at        timestamptz,
  apply_error       text NOT NULL DEFAULT '',
  result_data       jsonb
);
-- At most one open request per action and resource: decided here, whatever the number of nodes.
CREATE UNIQUE INDEX change_requests_one_open ON change_requests (project_id, action_key, resource_id) WHERE state IN ('pending', 'approved');
CREATE INDEX change_requests_project ON change_requests (project_id, created_at DESC);

CREATE TABLE change_request_votes (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  change_request_id uuid NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
  created_by_id     integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  decision          text NOT NULL CHECK (decision IN ('approved', 'rejected')),
  reason            text NOT NULL DEFAULT '',
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (change_request_id, created_by_id)
);
