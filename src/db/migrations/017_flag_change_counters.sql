-- Each project's count of committed flag writes, bumped once by every unit of work that writes a
-- flag, last before its COMMIT; the flags written carry the count they were written at. A process
-- holding the project's flags in memory reads this one row per request to prove its copy current,
-- and reads back only the flags with a later count (docs/architecture.md, "Read your writes").
-- The row lock serialises the bumps, so the counts commit in order: whoever sees count n sees
-- every write counted up to n.
CREATE TABLE flag_change_counters (
  project_id  integer PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  counter     integer NOT NULL
);

ALTER TABLE feature_flags ADD COLUMN change_seq integer NOT NULL DEFAULT 0;
CREATE INDEX feature_flags_change_seq_idx ON feature_flags (project_id, change_seq);
