-- Survey responses in a narrow form, for statistics and response counts over millions of events
-- (docs/surveys.md "Response statistics"). `events` keeps every event as sent; these tables are
-- derived from it: written by the ingestion pipeline in the transaction that stores the events
-- (src/surveys/responses/processor.ts), rebuilt from `events` by survey_responses_rebuild().

-- How an event of `events` reads as a survey event. The one definition used by ingestion and by
-- the rebuild. Only `$survey_id` values that are UUIDs name a survey (others are skipped).
-- The submission key: `$survey_submission_id` (a UUID as is, any other string hashed into one),
-- or the event's own uuid when that property is missing or empty (legacy events).
CREATE VIEW survey_events_source AS
SELECT e.project_id,
       -- CASE: the cast must never see a value the WHERE clause leaves out (a condition on this
       -- column could be evaluated before that clause's test)
       CASE WHEN e.properties->>'$survey_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
            THEN (e.properties->>'$survey_id')::uuid END AS survey_id,
       (CASE e.event WHEN 'survey shown' THEN 1 WHEN 'survey dismissed' THEN 2 ELSE 3 END)::smallint AS kind,
       e.timestamp,
       e.uuid,
       e.person_id,
       CASE
         WHEN coalesce(e.properties->>'$survey_submission_id', '') = '' THEN e.uuid
         WHEN e.properties->>'$survey_submission_id' ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
           THEN (e.properties->>'$survey_submission_id')::uuid
         ELSE md5(e.properties->>'$survey_submission_id')::uuid
       END AS submission_key,
       e.event = 'survey dismissed'
         AND coalesce(e.properties->'$survey_partially_completed' IN ('true'::jsonb, '"true"'::jsonb), false) AS partial
  FROM events e
 WHERE e.event IN ('survey shown', 'survey dismissed', 'survey sent')
   AND e.properties->>'$survey_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

-- kind: 1 survey shown, 2 survey dismissed, 3 survey sent. `partial`: a dismissal with
-- `$survey_partially_completed` (kept, but counted nowhere). No foreign key to surveys: events
-- may name a survey that does not exist (yet, or any more).
CREATE TABLE survey_events (
  project_id      integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  survey_id       uuid NOT NULL,
  kind            smallint NOT NULL CHECK (kind BETWEEN 1 AND 3),
  timestamp       timestamptz NOT NULL,
  uuid            uuid NOT NULL,
  person_id       uuid,
  submission_key  uuid NOT NULL,
  partial         boolean NOT NULL,
  PRIMARY KEY (project_id, uuid)
);
-- Time windows per survey and kind: first/last seen, the events outside a window, raw aggregates.
CREATE INDEX survey_events_window_idx ON survey_events (project_id, survey_id, kind, timestamp)
  INCLUDE (person_id, uuid, submission_key) WHERE NOT partial;
-- The events of one submission: its latest event inside a window.
CREATE INDEX survey_events_submission_idx ON survey_events (project_id, survey_id, submission_key, timestamp, uuid)
  INCLUDE (person_id) WHERE kind = 3;

-- One row per submission (the `survey sent` events sharing a submission key): how many events,
-- and the latest one (by timestamp, then uuid), which is the response.
CREATE TABLE survey_submissions (
  project_id      integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  survey_id       uuid NOT NULL,
  submission_key  uuid NOT NULL,
  events          integer NOT NULL,
  latest_at       timestamptz NOT NULL,
  latest_uuid     uuid NOT NULL,
  latest_person   uuid,
  PRIMARY KEY (project_id, survey_id, submission_key)
);
CREATE INDEX survey_submissions_latest_idx ON survey_submissions (project_id, survey_id, latest_at)
  INCLUDE (submission_key);

-- One row per survey and person (events without a person are left out): counted events per kind
-- (dismissals without the partial ones, every `survey sent` event) and `responses`, how many
-- submissions have their latest event from this person.
CREATE TABLE survey_persons (
  project_id  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  survey_id   uuid NOT NULL,
  person_id   uuid NOT NULL,
  shown       integer NOT NULL,
  dismissed   integer NOT NULL,
  sent        integer NOT NULL,
  responses   integer NOT NULL,
  PRIMARY KEY (project_id, survey_id, person_id)
);

-- Per survey, over all time: the numbers the statistics start from (a window subtracts what lies
-- outside it). `version` moves on every change (from one sequence, so never back).
CREATE SEQUENCE survey_response_versions;
CREATE TABLE survey_response_totals (
  project_id                  integer NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  survey_id                   uuid NOT NULL,
  shown_events                integer NOT NULL,
  shown_persons               integer NOT NULL,
  dismissed_events            integer NOT NULL,
  dismissed_persons           integer NOT NULL,
  sent_events                 integer NOT NULL,
  submissions                 integer NOT NULL,
  -- persons with at least one response (the latest event of a submission)
  responding_persons          integer NOT NULL,
  -- persons with a (counted) dismissal and a `survey sent` event
  dismissed_and_sent_persons  integer NOT NULL,
  version                     bigint NOT NULL DEFAULT nextval('survey_response_versions'),
  PRIMARY KEY (project_id, survey_id)
);

-- Derives a project's survey tables from its events, from scratch: the backfill below, and
-- whoever loads `events` in bulk (the benchmark).
CREATE FUNCTION survey_responses_rebuild(p_project integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM survey_response_totals WHERE project_id = p_project;
  DELETE FROM survey_persons WHERE project_id = p_project;
  DELETE FROM survey_submissions WHERE project_id = p_project;
  DELETE FROM survey_events WHERE project_id = p_project;

  INSERT INTO survey_events (project_id, survey_id, kind, timestamp, uuid, person_id, submission_key, partial)
  SELECT project_id, survey_id, kind, timestamp, uuid, person_id, submission_key, partial
    FROM survey_events_source WHERE project_id = p_project;

  INSERT INTO survey_submissions (project_id, survey_id, submission_key, events, latest_at, latest_uuid, latest_person)
  SELECT DISTINCT ON (survey_id, submission_key)
         project_id, survey_id, submission_key,
         count(*) OVER (PARTITION BY survey_id, submission_key), timestamp, uuid, person_id
    FROM survey_events
   WHERE project_id = p_project AND kind = 3
   ORDER BY survey_id, submission_key, timestamp DESC, uuid DESC;

  INSERT INTO survey_persons (project_id, survey_id, person_id, shown, dismissed, sent, responses)
  SELECT p_project, survey_id, person_id, sum(shown), sum(dismissed), sum(sent), sum(responses)
    FROM (SELECT survey_id, person_id,
                 count(*) FILTER (WHERE kind = 1) AS shown,
                 count(*) FILTER (WHERE kind = 2) AS dismissed,
                 count(*) FILTER (WHERE kind = 3) AS sent,
                 0 AS responses
            FROM survey_events
           WHERE project_id = p_project AND NOT partial AND person_id IS NOT NULL
           GROUP BY survey_id, person_id
          UNION ALL
          SELECT survey_id, latest_person, 0, 0, 0, count(*)
            FROM survey_submissions
           WHERE project_id = p_project AND latest_person IS NOT NULL
           GROUP BY survey_id, latest_person) parts
   GROUP BY survey_id, person_id;

  INSERT INTO survey_response_totals (project_id, survey_id, shown_events, shown_persons, dismissed_events,
                                      dismissed_persons, sent_events, submissions, responding_persons,
                                      dismissed_and_sent_persons)
  SELECT p_project, survey_id, sum(shown_events), sum(shown_persons), sum(dismissed_events), sum(dismissed_persons),
         sum(sent_events), sum(submissions), sum(responding_persons), sum(dismissed_and_sent_persons)
    FROM (SELECT survey_id,
                 count(*) FILTER (WHERE kind = 1) AS shown_events, 0 AS shown_persons,
                 count(*) FILTER (WHERE kind = 2) AS dismissed_events, 0 AS dismissed_persons,
                 count(*) FILTER (WHERE kind = 3) AS sent_events, 0 AS submissions,
                 0 AS responding_persons, 0 AS dismissed_and_sent_persons
            FROM survey_events
           WHERE project_id = p_project AND NOT partial
           GROUP BY survey_id
          UNION ALL
          SELECT survey_id, 0, count(*) FILTER (WHERE shown > 0), 0, count(*) FILTER (WHERE dismissed > 0), 0, 0,
                 count(*) FILTER (WHERE responses > 0), count(*) FILTER (WHERE dismissed > 0 AND sent > 0)
            FROM survey_persons
           WHERE project_id = p_project
           GROUP BY survey_id
          UNION ALL
          SELECT survey_id, 0, 0, 0, 0, 0, count(*), 0, 0
            FROM survey_submissions
           WHERE project_id = p_project
           GROUP BY survey_id) parts
   GROUP BY survey_id;
END
$$;

SELECT survey_responses_rebuild(id) FROM projects;
