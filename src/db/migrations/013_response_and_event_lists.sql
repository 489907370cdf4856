-- The survey responses list and its CSV export (docs/surveys.md "Reading responses"): a survey's
-- `survey sent` rows newest first by (timestamp, uuid), the keyset its cursor walks. `NOT partial`
-- (always true of `survey sent` rows) keeps it to the list's own scan: the list's per-row lookup
-- of a submission's latest event does not say it, so it can only use survey_events_submission_idx.
CREATE INDEX survey_events_responses_idx ON survey_events (project_id, survey_id, timestamp, uuid) WHERE kind = 3 AND NOT partial;

-- The events list (GET /api/projects/{id}/events/): newest first over the whole project, and by
-- distinct id (also what a person_id filter becomes). An event-name filter uses events_name_time_idx.
CREATE INDEX events_time_idx ON events (project_id, timestamp, uuid);
CREATE INDEX events_distinct_id_time_idx ON events (project_id, distinct_id, timestamp, uuid);
