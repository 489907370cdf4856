-- One row per (experiment, primary metric) once its results first came out significant: the
-- `experiment.significant` event is raised in the transaction that inserts the row, so the
-- primary key decides, across processes, that it is raised once.
CREATE TABLE experiment_significance_notices (
  experiment_id  integer NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,
  metric_uuid    text NOT NULL,
  notified_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (experiment_id, metric_uuid)
);
