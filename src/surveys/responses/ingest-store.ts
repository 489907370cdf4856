/**
 * SQL of the survey-events processor: the new events in their narrow form (survey_events, with a
 * `survey sent` event's distinct id, answers and completeness for the responses list) and the
 * rollups the statistics start from (survey_submissions, survey_persons, survey_response_totals),
 * updated by what the new events add. The same numbers survey_responses_rebuild() (migration 010)
 * derives from scratch; test/surveys/stats.test.ts checks that both agree.
 */
import { advisoryLockKeys } from '../../db/advisory-locks.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';

const LOCK_NAMESPACE = 'bellwether:survey-responses:';

/**
 * Transaction-scoped advisory lock keys for these surveys, sorted: batches touching the same survey
 * update its rollups one after the other (each statement then reads what the previous batch
 * committed), and never wait on each other in a cycle.
 */
export function surveyLockKeys(projectId: number, surveyIds: Iterable<string>): bigint[] {
  return advisoryLockKeys(`${LOCK_NAMESPACE}${projectId}:`, surveyIds);
}

/** A rollup table of one project: the columns that key a row, and the values a batch merges into it. */
interface Rollup {
  table: string;
  keys: readonly string[];
  values: readonly string[];
}

const SUBMISSIONS: Rollup = { table: 'survey_submissions', keys: ['survey_id', 'submission_key'], values: ['events', 'latest_at', 'latest_uuid', 'latest_person'] };
const PERSONS: Rollup = { table: 'survey_persons', keys: ['survey_id', 'person_id'], values: ['shown', 'dismissed', 'sent', 'responses'] };

/** The rollup row (as `o`) that the batch row aliased `batch` merges with, read by its key: one lookup per batch row. */
function oldRow({ table, keys }: Rollup, batch: string): string {
  const matches = keys.map((key) => `x.${key} = ${batch}.${key}`).join(' AND ');
  return `LEFT JOIN LATERAL (SELECT * FROM ${table} x WHERE x.project_id = $1 AND ${matches} LIMIT 1) o ON true`;
}

/** The merged rows of `merged` written over their rollup rows. */
function writtenBack({ table, keys, values }: Rollup, merged: string): string {
  const columns = [...keys, ...values].join(', ');
  return `
  INSERT INTO ${table} (project_id, ${columns})
  SELECT $1, ${columns} FROM ${merged}
  ON CONFLICT (project_id, ${keys.join(', ')}) DO UPDATE
     SET ${values.map((value) => `${value} = EXCLUDED.${value}`).join(', ')}
`;
}

/**
 * One statement: the events (already in `events`, read back through survey_events_source) become
 * survey_events rows, and each rollup row they touch is read, merged with the batch and written
 * back; the totals move by the difference. Every part reads the same snapshot (the rollups before
 * this batch), which is why the old rows are read explicitly and the survey locks are held first.
 * (Data-modifying parts of a WITH always run, referenced or not.)
 */
const APPLY = `
WITH fresh AS (
  INSERT INTO survey_events (project_id, survey_id, kind, timestamp, uuid, person_id, submission_key, partial,
                             distinct_id, answers, incomplete)
  -- One primary-key lookup per new event: LIMIT keeps the subquery per row, so the plan cannot
  -- become a scan of every survey event of the project when statistics are stale (a table that
  -- grew since its last ANALYZE, or a server without autovacuum).
  SELECT src.project_id, src.survey_id, src.kind, src.timestamp, src.uuid, src.person_id, src.submission_key, src.partial,
         src.distinct_id, src.answers, src.incomplete
    FROM unnest($2::uuid[]) AS wanted(uuid),
         LATERAL (SELECT * FROM survey_events_source s WHERE s.project_id = $1 AND s.uuid = wanted.uuid LIMIT 1) AS src
  ON CONFLICT (project_id, uuid) DO NOTHING
  RETURNING survey_id, kind, timestamp, uuid, person_id, submission_key, partial
),
counted AS (SELECT * FROM fresh WHERE NOT partial),
batch_submissions AS (
  SELECT DISTINCT ON (survey_id, submission_key)
         survey_id, submission_key, count(*) OVER (PARTITION BY survey_id, submission_key) AS events,
         timestamp, uuid, person_id
    FROM counted WHERE kind = 3
   ORDER BY survey_id, submission_key, timestamp DESC, uuid DESC
),
merged_submissions AS (
  SELECT b.survey_id, b.submission_key,
         b.events + coalesce(o.events, 0) AS events,
         o.survey_id IS NULL AS created,
         o.latest_person AS old_person,
         o.survey_id IS NOT NULL AS had_old,
         CASE WHEN o.survey_id IS NULL OR (b.timestamp, b.uuid) > (o.latest_at, o.latest_uuid) THEN b.timestamp ELSE o.latest_at END AS latest_at,
         CASE WHEN o.survey_id IS NULL OR (b.timestamp, b.uuid) > (o.latest_at, o.latest_uuid) THEN b.uuid ELSE o.latest_uuid END AS latest_uuid,
         CASE WHEN o.survey_id IS NULL OR (b.timestamp, b.uuid) > (o.latest_at, o.latest_uuid) THEN b.person_id ELSE o.latest_person END AS latest_person
    FROM batch_submissions b
    ${oldRow(SUBMISSIONS, 'b')}
),
written_submissions AS (${writtenBack(SUBMISSIONS, 'merged_submissions')}),
person_deltas AS (
  SELECT survey_id, person_id, sum(shown)::int AS shown, sum(dismissed)::int AS dismissed, sum(sent)::int AS sent,
         sum(responses)::int AS responses
    FROM (SELECT survey_id, person_id, (kind = 1)::int AS shown, (kind = 2)::int AS dismissed, (kind = 3)::int AS sent,
                 0 AS responses
            FROM counted WHERE person_id IS NOT NULL
          UNION ALL
          SELECT survey_id, latest_person, 0, 0, 0, 1 FROM merged_submissions WHERE latest_person IS NOT NULL
          UNION ALL
          SELECT survey_id, old_person, 0, 0, 0, -1 FROM merged_submissions WHERE had_old AND old_person IS NOT NULL) parts
   GROUP BY survey_id, person_id
),
merged_persons AS (
  SELECT d.survey_id, d.person_id,
         coalesce(o.shown, 0) AS old_shown, coalesce(o.dismissed, 0) AS old_dismissed,
         coalesce(o.sent, 0) AS old_sent, coalesce(o.responses, 0) AS old_responses,
         coalesce(o.shown, 0) + d.shown AS shown, coalesce(o.dismissed, 0) + d.dismissed AS dismissed,
         coalesce(o.sent, 0) + d.sent AS sent, coalesce(o.responses, 0) + d.responses AS responses
    FROM person_deltas d
    ${oldRow(PERSONS, 'd')}
),
written_persons AS (${writtenBack(PERSONS, 'merged_persons')}),
survey_deltas AS (
  SELECT survey_id, sum(shown_events)::int AS shown_events, sum(shown_persons)::int AS shown_persons,
         sum(dismissed_events)::int AS dismissed_events, sum(dismissed_persons)::int AS dismissed_persons,
         sum(sent_events)::int AS sent_events, sum(submissions)::int AS submissions,
         sum(responding_persons)::int AS responding_persons, sum(dismissed_and_sent_persons)::int AS dismissed_and_sent_persons
    FROM (SELECT survey_id, (kind = 1)::int AS shown_events, 0 AS shown_persons, (kind = 2)::int AS dismissed_events,
                 0 AS dismissed_persons, (kind = 3)::int AS sent_events, 0 AS submissions, 0 AS responding_persons,
                 0 AS dismissed_and_sent_persons
            FROM counted
          UNION ALL
          SELECT survey_id, 0, (old_shown = 0 AND shown > 0)::int, 0, (old_dismissed = 0 AND dismissed > 0)::int, 0, 0,
                 (responses > 0)::int - (old_responses > 0)::int,
                 (dismissed > 0 AND sent > 0)::int - (old_dismissed > 0 AND old_sent > 0)::int
            FROM merged_persons
          UNION ALL
          SELECT survey_id, 0, 0, 0, 0, 0, created::int, 0, 0 FROM merged_submissions) parts
   GROUP BY survey_id
)
INSERT INTO survey_response_totals AS t (project_id, survey_id, shown_events, shown_persons, dismissed_events,
                                         dismissed_persons, sent_events, submissions, responding_persons,
                                         dismissed_and_sent_persons)
SELECT $1, survey_id, shown_events, shown_persons, dismissed_events, dismissed_persons, sent_events, submissions,
       responding_persons, dismissed_and_sent_persons
  FROM survey_deltas
ON CONFLICT (project_id, survey_id) DO UPDATE
   SET shown_events = t.shown_events + EXCLUDED.shown_events,
       shown_persons = t.shown_persons + EXCLUDED.shown_persons,
       dismissed_events = t.dismissed_events + EXCLUDED.dismissed_events,
       dismissed_persons = t.dismissed_persons + EXCLUDED.dismissed_persons,
       sent_events = t.sent_events + EXCLUDED.sent_events,
       submissions = t.submissions + EXCLUDED.submissions,
       responding_persons = t.responding_persons + EXCLUDED.responding_persons,
       dismissed_and_sent_persons = t.dismissed_and_sent_persons + EXCLUDED.dismissed_and_sent_persons,
       version = nextval('survey_response_versions')
RETURNING survey_id::text AS survey_id`;

/**
 * After APPLY (whose rows a later statement sees): the `superseded_at` each `survey sent` row of the
 * submissions these events belong to should have (the timestamp of its submission's next one),
 * answered only where it differs from what the row holds (a submission's first event changes
 * nothing). The LIMIT 1 and OFFSET 0 keep both lookups per submission through the indexes: when
 * the table grew since its last ANALYZE, a flattened join was planned as a scan of every survey
 * event per batch (2 s a batch at 4,000 rows).
 */
const CHAIN_CHANGES = `
SELECT uuid, next_at::text AS next_at
  FROM (SELECT c.uuid, c.superseded_at,
               lead(c.timestamp) OVER (PARTITION BY touched.survey_id, touched.submission_key ORDER BY c.timestamp, c.uuid) AS next_at
          FROM (SELECT DISTINCT t.survey_id, t.submission_key
                  FROM unnest($2::uuid[]) AS wanted(uuid),
                       LATERAL (SELECT s.survey_id, s.submission_key FROM survey_events s
                                 WHERE s.project_id = $1 AND s.uuid = wanted.uuid AND s.kind = 3 LIMIT 1) t) touched
          CROSS JOIN LATERAL (SELECT x.timestamp, x.uuid, x.superseded_at FROM survey_events x
                               WHERE x.project_id = $1 AND x.survey_id = touched.survey_id
                                 AND x.submission_key = touched.submission_key AND x.kind = 3
                              OFFSET 0) c) chain
 WHERE superseded_at IS DISTINCT FROM next_at`;

const SET_SUPERSEDED = `
UPDATE survey_events se SET superseded_at = u.next_at
  FROM unnest($2::uuid[], $3::timestamptz[]) AS u(uuid, next_at)
 WHERE se.project_id = $1 AND se.uuid = u.uuid`;

/** Writes the survey events among these (fresh) event uuids and their rollups; answers the surveys touched. */
export async function applySurveyEvents(db: WriteTx, projectId: number, uuids: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ survey_id: string }>(APPLY, [projectId, uuids]);
  const changes = await db.query<{ uuid: string; next_at: string | null }>(CHAIN_CHANGES, [projectId, uuids]);
  if (changes.rows.length > 0) {
    await db.query(SET_SUPERSEDED, [projectId, changes.rows.map((row) => row.uuid), changes.rows.map((row) => row.next_at)]);
  }
  return rows.map((row) => row.survey_id);
}
