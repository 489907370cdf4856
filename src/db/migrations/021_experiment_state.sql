-- Per-experiment state kept up to date by ingestion, in the same transaction as the events.

-- One row per exposed person: when they were first exposed and with which variant(s).
CREATE TABLE experiment_exposures (
  experiment_id  integer NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  person_id      uuid NOT NULL,
  first_seen_at  timestamptz NOT NULL,
  -- the variant of the earliest exposure
  first_variant  text NOT NULL,
  -- more than one distinct variant was seen for this person
  multiple       boolean NOT NULL DEFAULT false,
  PRIMARY KEY (experiment_id, person_id)
);

-- One row per (experiment, metric, exposed person with metric events): the person's aggregate.
CREATE TABLE experiment_metric_units (
  experiment_id  integer NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  metric_uuid    text NOT NULL,
  person_id      uuid NOT NULL,
  -- mean / ratio numerator: sum (or min, max) of the values; count of matching events
  num            double precision NOT NULL DEFAULT 0,
  num_count      bigint NOT NULL DEFAULT 0,
  -- ratio denominator
  den            double precision NOT NULL DEFAULT 0,
  den_count      bigint NOT NULL DEFAULT 0,
  -- funnel: the last step reached (0 = none) and when
  step           integer NOT NULL DEFAULT 0,
  step_at        timestamptz,
  PRIMARY KEY (experiment_id, metric_uuid, person_id)
);

-- Metric events of persons not (yet) exposed: when the exposure arrives later (another batch, a
-- client that sent its events out of order), they are counted then. Kept for an hour.
CREATE TABLE experiment_pending_events (
  experiment_id  integer NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  person_id      uuid NOT NULL,
  event_uuid     uuid NOT NULL,
  timestamp      timestamptz NOT NULL,
  recorded_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, person_id, event_uuid)
);
CREATE INDEX experiment_pending_events_age_idx ON experiment_pending_events (recorded_at);

-- Running per-variant sums of each metric (the sufficient statistics), kept by ingestion as
-- deltas, spread over a few shards so that concurrent batches seldom wait for the same row.
-- `variant` is the person's variant under the experiment's multiple-variant handling
-- (`$multiple` for persons seen in several when they are excluded).
CREATE TABLE experiment_metric_sums (
  experiment_id  integer NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  metric_uuid    text NOT NULL,
  variant        text NOT NULL,
  shard          smallint NOT NULL,
  n              bigint NOT NULL DEFAULT 0,
  s              double precision NOT NULL DEFAULT 0,
  q              double precision NOT NULL DEFAULT 0,
  ds             double precision NOT NULL DEFAULT 0,
  dq             double precision NOT NULL DEFAULT 0,
  p              double precision NOT NULL DEFAULT 0,
  steps          bigint[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (experiment_id, metric_uuid, variant, shard)
);

-- Newly exposed persons per variant per UTC day, the same way.
CREATE TABLE experiment_exposure_days (
  experiment_id  integer NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  variant        text NOT NULL,
  day            date NOT NULL,
  shard          smallint NOT NULL,
  n              bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (experiment_id, variant, day, shard)
);
