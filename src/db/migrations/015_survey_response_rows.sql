-- What the responses list and its CSV export show of a `survey sent` event, kept on its
-- survey_events row (docs/surveys.md "Reading responses"), so that reading a response needs
-- neither the wide `events` row nor a parse of all its properties. NULL on shown/dismissed rows.
--   distinct_id  the event's distinct id (the person is still looked up through it when read)
--   answers      the event's `$survey_response…` properties as sent (id-based and index-based keys)
--   incomplete   `$survey_completed` present and not true (a partial response)
--   superseded_at  the timestamp of the submission's next `survey sent` event (by timestamp, then
--                uuid); NULL for its latest. The response of a window ending at T is the event with
--                superseded_at NULL or after T: no lookup of the submission's other events per row.
ALTER TABLE survey_events
  ADD COLUMN distinct_id text,
  ADD COLUMN answers jsonb,
  ADD COLUMN incomplete boolean,
  ADD COLUMN superseded_at timestamptz;

-- Every answer's text, one per line, as `answers ->> key` reads it (a string as is, a list or
-- number as JSON): a search matching one answer matches this text, so its trigram index narrows
-- a search before the exact per-question test.
CREATE FUNCTION survey_answers_text(answers jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(string_agg(value, E'\n'), '') FROM jsonb_each_text(coalesce(answers, '{}'::jsonb)) $$;

CREATE FUNCTION survey_answers_of(properties jsonb) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb)
          FROM jsonb_each(properties) WHERE starts_with(key, '$survey_response') $$;

-- The source view gains the three columns (appended: CREATE OR REPLACE keeps the others).
CREATE OR REPLACE VIEW survey_events_source AS
SELECT e.project_id,
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
         AND coalesce(e.properties->'$survey_partially_completed' IN ('true'::jsonb, '"true"'::jsonb), false) AS partial,
       CASE WHEN e.event = 'survey sent' THEN e.distinct_id END AS distinct_id,
       CASE WHEN e.event = 'survey sent' THEN survey_answers_of(e.properties) END AS answers,
       CASE WHEN e.event = 'survey sent' THEN coalesce(e.properties->>'$survey_completed', 'true') <> 'true' END AS incomplete
  FROM events e
 WHERE e.event IN ('survey shown', 'survey dismissed', 'survey sent')
   AND e.properties->>'$survey_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

-- The rebuild derives the new columns too (otherwise as in migration 010).
CREATE OR REPLACE FUNCTION survey_responses_rebuild(p_project integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM survey_response_totals WHERE project_id = p_project;
  DELETE FROM survey_persons WHERE project_id = p_project;
  DELETE FROM survey_submissions WHERE project_id = p_project;
  DELETE FROM survey_events WHERE project_id = p_project;

  INSERT INTO survey_events (project_id, survey_id, kind, timestamp, uuid, person_id, submission_key, partial,
                             distinct_id, answers, incomplete, superseded_at)
  SELECT project_id, survey_id, kind, timestamp, uuid, person_id, submission_key, partial, distinct_id, answers, incomplete,
         CASE WHEN kind = 3 THEN lead(timestamp) OVER (PARTITION BY survey_id, kind, submission_key ORDER BY timestamp, uuid) END
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

-- Backfill of the `survey sent` rows already derived, in batches of 20 000 rows (keyset on the
-- primary key), so that no single statement holds millions of rows.
DO $$
DECLARE
  last_project integer := -1;
  last_uuid uuid := '00000000-0000-0000-0000-000000000000';
  batch_end record;
BEGIN
  LOOP
    SELECT project_id, uuid INTO batch_end
      FROM (SELECT project_id, uuid FROM survey_events
             WHERE kind = 3 AND (project_id, uuid) > (last_project, last_uuid)
             ORDER BY project_id, uuid LIMIT 20000) batch
     ORDER BY project_id DESC, uuid DESC LIMIT 1;
    EXIT WHEN batch_end IS NULL;
    -- A primary-key lookup per row (a correlated subquery: never a scan of `events` per batch).
    UPDATE survey_events se
       SET (distinct_id, answers, incomplete) =
           (SELECT src.distinct_id, src.answers, src.incomplete FROM survey_events_source src
             WHERE src.project_id = se.project_id AND src.uuid = se.uuid LIMIT 1),
           superseded_at =
           (SELECT later.timestamp FROM survey_events later
             WHERE later.project_id = se.project_id AND later.survey_id = se.survey_id AND later.kind = 3
               AND later.submission_key = se.submission_key AND (later.timestamp, later.uuid) > (se.timestamp, se.uuid)
             ORDER BY later.timestamp, later.uuid LIMIT 1)
     WHERE se.kind = 3
       AND (se.project_id, se.uuid) > (last_project, last_uuid) AND (se.project_id, se.uuid) <= (batch_end.project_id, batch_end.uuid);
    last_project := batch_end.project_id;
    last_uuid := batch_end.uuid;
  END LOOP;
END
$$;

-- Search in open answers: a trigram index over the answers' text when pg_trgm can be had (it
-- ships with PostgreSQL's contrib, in Debian's server package and in the embedded PostgreSQL,
-- and is a trusted extension: the database's owner may create it). Without it a search reads
-- the responses it passes, bounded by the list's statement timeout.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available (%): searches in survey answers run without an index', SQLERRM;
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE format('CREATE INDEX survey_events_answers_trgm_idx ON survey_events USING gin (survey_answers_text(answers) %I.gin_trgm_ops) WHERE kind = 3',
                   (SELECT n.nspname FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace WHERE x.extname = 'pg_trgm'));
  END IF;
END
$$;
