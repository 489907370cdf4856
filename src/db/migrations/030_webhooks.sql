-- Webhook endpoints and their outbox: one delivery row per (event, endpoint), written in the same
-- transaction as the change that causes it, claimed by the delivery worker of any process.

CREATE TABLE webhook_endpoints (
  id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id                  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  url                         text NOT NULL,
  events                      text[] NOT NULL,
  format                      text NOT NULL CHECK (format IN ('json', 'slack')),
  enabled                     boolean NOT NULL DEFAULT true,
  description                 text NOT NULL DEFAULT '',
  -- the signing secret: `whsec_…`, or AES-GCM ciphertext when SECRET_KEY is set
  secret                      text NOT NULL,
  secret_mask                 text NOT NULL,
  -- the secret before the last rotation, still signing until previous_secret_expires_at
  previous_secret             text,
  previous_secret_expires_at  timestamptz,
  -- the first failure since the last success; 3 days of failures disable the endpoint
  failing_since               timestamptz,
  disabled_reason             text,
  disabled_at                 timestamptz,
  created_by_id               integer REFERENCES users(id) ON DELETE SET NULL,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX webhook_endpoints_project_idx ON webhook_endpoints (project_id, created_at);

CREATE TABLE webhook_deliveries (
  id               bigserial PRIMARY KEY,
  endpoint_id      uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  project_id       integer NOT NULL,
  -- the Standard Webhooks message id (`webhook-id`): the same on every attempt and redelivery
  message_id       text NOT NULL,
  event_type       text NOT NULL,
  -- the body {type, timestamp, data}; a Slack endpoint's text is rendered from it when sent
  payload          jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  -- set while an attempt is in flight; an attempt whose process died is due again after it
  in_flight_until  timestamptz,
  last_attempt_at  timestamptz,
  response_status  integer,
  response_body    text,
  duration_ms      integer,
  error            text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz
);

-- The worker's claim: an endpoint's due rows, in the order they fell due (first attempts: the
-- order of their changes), and the rows in flight it counts against the endpoint's concurrency.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_in_flight_idx ON webhook_deliveries (endpoint_id, in_flight_until) WHERE status = 'pending' AND in_flight_until IS NOT NULL;
-- The deliveries log (newest first) and the 30-day retention sweep.
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id DESC);
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (finished_at) WHERE status <> 'pending';
