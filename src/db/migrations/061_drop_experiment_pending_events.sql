-- Metric events of persons not (yet) exposed are no longer copied aside per experiment: when a
-- person's exposure is written (or moves earlier), their events since then are read back from
-- `events` through its distinct-id index, in the same statement (src/experiments/exposure/state-store.ts).
DROP TABLE experiment_pending_events;
