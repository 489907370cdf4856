-- Changes to a record (a feature flag) due at a time, one-off or recurring. The executor on every
-- node claims due rows with FOR UPDATE SKIP LOCKED and applies each in the transaction that marks it.
CREATE TABLE scheduled_changes (
  id                  bigserial PRIMARY KEY,
  project_id          integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  record_id           varchar(200) NOT NULL,
  model_name          text NOT NULL,
  payload             jsonb NOT NULL,
  scheduled_at        timestamptz NOT NULL,
  executed_at         timestamptz,
  -- JSON text: {error, error_type, will_retry, retry_count, max_retries, retry_exhausted?, error_classification}
  failure_reason      text,
  failure_count       integer NOT NULL DEFAULT 0,
  -- A recoverable failure is not tried again before this moment (backoff).
  retry_at            timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  created_by_id       integer REFERENCES users(id) ON DELETE SET NULL,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  is_recurring        boolean NOT NULL DEFAULT false,
  recurrence_interval text CHECK (recurrence_interval IN ('daily', 'weekly', 'monthly', 'yearly')),
  cron_expression     varchar(100),
  last_executed_at    timestamptz,
  end_date            timestamptz,
  timezone            text
);

-- The executor's claim: pending rows by due time.
CREATE INDEX scheduled_changes_due ON scheduled_changes (scheduled_at, id) WHERE executed_at IS NULL;
-- A flag's schedules (?model_name=FeatureFlag&record_id=…).
CREATE INDEX scheduled_changes_record ON scheduled_changes (project_id, model_name, record_id);
