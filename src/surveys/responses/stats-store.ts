/**
 * SQL of the response statistics. Two ways to the same exact numbers:
 * - from the rollups: a survey's all-time totals (survey_response_totals) minus what lies outside
 *   the window or is archived, looked up per person and per submission; the cost follows the
 *   events left out, so a survey's own window (nearly everything) costs a few milliseconds
 *   whatever the survey's size;
 * - raw: aggregates over the window's survey_events rows, for windows that leave most events out
 *   and for several surveys at once (global stats with dates).
 * Windows are closed ([from, to], either end open when null); timestamps travel as text so that
 * microseconds survive.
 */
import type { ReadHandle } from '../../db/pool.ts';

export interface Window {
  /** Inclusive bounds, PostgreSQL timestamptz text; null = open. */
  from: string | null;
  to: string | null;
}

/** The numbers a statistics answer is made of, before the PostHog adjustments (stats.ts). */
export interface RawSurveyNumbers {
  shownEvents: number;
  shownPersons: number;
  shownFirst: number | null;
  shownLast: number | null;
  dismissedEvents: number;
  dismissedPersons: number;
  dismissedFirst: number | null;
  dismissedLast: number | null;
  responses: number;
  respondingPersons: number;
  responsesFirst: number | null;
  responsesLast: number | null;
  /** Persons with a counted dismissal and a `survey sent` event (not de-duplicated). */
  dismissedAndSentPersons: number;
}

export const NO_NUMBERS: RawSurveyNumbers = {
  shownEvents: 0,
  shownPersons: 0,
  shownFirst: null,
  shownLast: null,
  dismissedEvents: 0,
  dismissedPersons: 0,
  dismissedFirst: null,
  dismissedLast: null,
  responses: 0,
  respondingPersons: 0,
  responsesFirst: null,
  responsesLast: null,
  dismissedAndSentPersons: 0,
};

const FROM = `coalesce($3::timestamptz, '-infinity')`;
const TO = `coalesce($4::timestamptz, 'infinity')`;
/** Microseconds since the epoch (exact: numeric, then bigint). */
const micros = (expression: string) => `(extract(epoch FROM ${expression}) * 1000000)::bigint`;

/**
 * The survey's window: the arguments clamped to its start (or creation) and end, in SQL so that
 * the survey's own microseconds count. `empty` when the clamped window holds no instant.
 */
export async function clampedWindow(
  db: ReadHandle,
  projectId: number,
  surveyId: string,
  from: string | null,
  to: string | null,
): Promise<Window & { empty: boolean }> {
  // One row whether or not the survey still exists (a survey deleted meanwhile: the arguments as given).
  const { rows } = await db.query<{ from: string | null; to: string | null; empty: boolean }>(
    `SELECT w.lo::text AS from, w.hi::text AS to, coalesce(w.lo > w.hi, false) AS empty
       FROM (SELECT greatest($3::timestamptz, s.start_at) AS lo, least($4::timestamptz, s.end_at) AS hi
               FROM (SELECT 1) one
               LEFT JOIN (SELECT coalesce(start_date, created_at) AS start_at, end_date AS end_at
                            FROM surveys WHERE project_id = $1 AND id = $2) s ON true) w`,
    [projectId, surveyId, from, to],
  );
  return rows[0];
}

/**
 * Whether the events outside the window are fewer than half the survey's counted events (then
 * subtracting them from the totals is the cheaper way); stops counting at that half. Null when
 * the survey has no counted events at all.
 */
export async function fewEventsOutside(db: ReadHandle, projectId: number, surveyId: string, window: Window): Promise<boolean | null> {
  const { rows } = await db.query<{ half: number; outside: number }>(
    `WITH t AS (
       SELECT (shown_events + dismissed_events + sent_events) / 2 + 1 AS half
         FROM survey_response_totals WHERE project_id = $1 AND survey_id = $2)
     SELECT t.half,
            (SELECT count(*) FROM (
               SELECT 1 FROM survey_events
                WHERE project_id = $1 AND survey_id = $2 AND kind = ANY('{1,2,3}'::smallint[]) AND NOT partial AND timestamp < $3::timestamptz
               UNION ALL
               SELECT 1 FROM survey_events
                WHERE project_id = $1 AND survey_id = $2 AND kind = ANY('{1,2,3}'::smallint[]) AND NOT partial AND timestamp > $4::timestamptz
               LIMIT (SELECT half FROM t)) o)::int AS outside
       FROM t`,
    [projectId, surveyId, window.from, window.to],
  );
  if (rows.length === 0) return null;
  return rows[0].outside < rows[0].half;
}

// The survey's counted events that the window leaves out, or that are archived inside it.
const GONE = `
  SELECT kind, person_id, submission_key FROM survey_events
   WHERE project_id = $1 AND survey_id = $2 AND kind = ANY('{1,2,3}'::smallint[]) AND NOT partial AND timestamp < $3::timestamptz
  UNION ALL
  SELECT kind, person_id, submission_key FROM survey_events
   WHERE project_id = $1 AND survey_id = $2 AND kind = ANY('{1,2,3}'::smallint[]) AND NOT partial AND timestamp > $4::timestamptz
  UNION ALL
  SELECT kind, person_id, submission_key FROM survey_events
   WHERE project_id = $1 AND uuid = ANY($5::uuid[]) AND survey_id = $2 AND NOT partial
     AND timestamp >= ${FROM} AND timestamp <= ${TO}`;

const edge = (kind: number, direction: 'ASC' | 'DESC') => `
  (SELECT ${micros('e.timestamp')} FROM survey_events e
    WHERE e.project_id = $1 AND e.survey_id = $2 AND e.kind = ${kind} AND NOT e.partial
      AND e.timestamp >= ${FROM} AND e.timestamp <= ${TO} AND NOT (e.uuid = ANY($5::uuid[]))
    ORDER BY e.timestamp ${direction} LIMIT 1)`;

// A response is the latest event of its submission inside the window: for a submission with no
// event left out that is its stored latest event, found through survey_submissions_latest_idx.
const responseEdge = (direction: 'ASC' | 'DESC') => `
  (SELECT ${micros('s.latest_at')} FROM survey_submissions s
    WHERE s.project_id = $1 AND s.survey_id = $2 AND s.latest_at >= ${FROM} AND s.latest_at <= ${TO}
      AND NOT EXISTS (SELECT 1 FROM affected a WHERE a.submission_key = s.submission_key)
    ORDER BY s.latest_at ${direction} LIMIT 1)`;

const SUBTRACTED = `
WITH gone AS MATERIALIZED (${GONE}),
gone_persons AS (
  SELECT person_id, count(*) FILTER (WHERE kind = 1) AS shown, count(*) FILTER (WHERE kind = 2) AS dismissed,
         count(*) FILTER (WHERE kind = 3) AS sent
    FROM gone WHERE person_id IS NOT NULL GROUP BY person_id
),
person_losses AS (
  SELECT count(*) FILTER (WHERE p.shown > 0 AND p.shown = g.shown) AS shown,
         count(*) FILTER (WHERE p.dismissed > 0 AND p.dismissed = g.dismissed) AS dismissed,
         count(*) FILTER (WHERE p.dismissed > 0 AND p.sent > 0 AND (p.dismissed = g.dismissed OR p.sent = g.sent)) AS dismissed_and_sent
    FROM gone_persons g
    JOIN survey_persons p ON p.project_id = $1 AND p.survey_id = $2 AND p.person_id = g.person_id
),
affected AS MATERIALIZED (SELECT DISTINCT submission_key FROM gone WHERE kind = 3),
-- each affected submission: its stored response, and its latest event inside the window (kept
-- unless archived)
reps AS MATERIALIZED (
  SELECT s.latest_person AS old_person, w.timestamp AS new_at, w.person_id AS new_person,
         (w.uuid IS NOT NULL AND NOT (w.uuid = ANY($5::uuid[]))) AS kept
    FROM affected a
    JOIN survey_submissions s ON s.project_id = $1 AND s.survey_id = $2 AND s.submission_key = a.submission_key
    LEFT JOIN LATERAL (
      SELECT e.uuid, e.timestamp, e.person_id FROM survey_events e
       WHERE e.project_id = $1 AND e.survey_id = $2 AND e.kind = 3 AND e.submission_key = a.submission_key
         AND e.timestamp >= ${FROM} AND e.timestamp <= ${TO}
       ORDER BY e.timestamp DESC, e.uuid DESC LIMIT 1) w ON true
),
response_moves AS (
  SELECT person_id, sum(delta) AS delta
    FROM (SELECT old_person AS person_id, -1 AS delta FROM reps WHERE old_person IS NOT NULL
          UNION ALL
          SELECT new_person, 1 FROM reps WHERE kept AND new_person IS NOT NULL) moves
   GROUP BY person_id HAVING sum(delta) <> 0
),
responding AS (
  SELECT count(*) FILTER (WHERE coalesce(p.responses, 0) > 0 AND coalesce(p.responses, 0) + m.delta = 0) AS lost,
         count(*) FILTER (WHERE coalesce(p.responses, 0) = 0 AND m.delta > 0) AS won
    FROM response_moves m
    LEFT JOIN survey_persons p ON p.project_id = $1 AND p.survey_id = $2 AND p.person_id = m.person_id
)
SELECT t.shown_events - (SELECT count(*) FROM gone WHERE kind = 1) AS shown_events,
       t.shown_persons - l.shown AS shown_persons,
       ${edge(1, 'ASC')} AS shown_first,
       ${edge(1, 'DESC')} AS shown_last,
       t.dismissed_events - (SELECT count(*) FROM gone WHERE kind = 2) AS dismissed_events,
       t.dismissed_persons - l.dismissed AS dismissed_persons,
       ${edge(2, 'ASC')} AS dismissed_first,
       ${edge(2, 'DESC')} AS dismissed_last,
       t.submissions - (SELECT count(*) FROM reps) + (SELECT count(*) FROM reps WHERE kept) AS responses,
       t.responding_persons - r.lost + r.won AS responding_persons,
       least(${responseEdge('ASC')}, (SELECT ${micros('min(new_at)')} FROM reps WHERE kept)) AS responses_first,
       greatest(${responseEdge('DESC')}, (SELECT ${micros('max(new_at)')} FROM reps WHERE kept)) AS responses_last,
       t.dismissed_and_sent_persons - l.dismissed_and_sent AS dismissed_and_sent_persons
  FROM survey_response_totals t CROSS JOIN person_losses l CROSS JOIN responding r
 WHERE t.project_id = $1 AND t.survey_id = $2`;

interface NumbersRow {
  shown_events: number;
  shown_persons: number;
  shown_first: number | null;
  shown_last: number | null;
  dismissed_events: number;
  dismissed_persons: number;
  dismissed_first: number | null;
  dismissed_last: number | null;
  responses: number;
  responding_persons: number;
  responses_first: number | null;
  responses_last: number | null;
  dismissed_and_sent_persons: number;
}

function numbersOf(row: NumbersRow | undefined): RawSurveyNumbers {
  if (!row) return NO_NUMBERS;
  return {
    shownEvents: row.shown_events,
    shownPersons: row.shown_persons,
    shownFirst: row.shown_first,
    shownLast: row.shown_last,
    dismissedEvents: row.dismissed_events,
    dismissedPersons: row.dismissed_persons,
    dismissedFirst: row.dismissed_first,
    dismissedLast: row.dismissed_last,
    responses: row.responses,
    respondingPersons: row.responding_persons,
    responsesFirst: row.responses_first,
    responsesLast: row.responses_last,
    dismissedAndSentPersons: row.dismissed_and_sent_persons,
  };
}

/** One survey's numbers: its totals minus the events left out (see the file's comment). */
export async function subtractedNumbers(
  db: ReadHandle,
  projectId: number,
  surveyId: string,
  window: Window,
  archived: readonly string[],
): Promise<RawSurveyNumbers> {
  const { rows } = await db.query<NumbersRow>(SUBTRACTED, [projectId, surveyId, window.from, window.to, archived]);
  return numbersOf(rows[0]);
}

// Raw: the window's events of these surveys, each figure its own index scan; responses = the
// latest event per (survey, submission) read in index order per survey, then archived ones
// dropped; persons counted once across the surveys.
const IN_WINDOW = `project_id = $1 AND survey_id = ANY($2::uuid[]) AND NOT partial
  AND timestamp >= ${FROM} AND timestamp <= ${TO} AND NOT (uuid = ANY($5::uuid[]))`;

const kindFigures = (kind: number, name: string) => `
  ${name} AS (SELECT count(*) AS events, ${micros('min(timestamp)')} AS first, ${micros('max(timestamp)')} AS last,
                     (SELECT count(*) FROM (SELECT DISTINCT person_id FROM survey_events
                                             WHERE kind = ${kind} AND person_id IS NOT NULL AND ${IN_WINDOW}) d) AS persons
                FROM survey_events WHERE kind = ${kind} AND ${IN_WINDOW})`;

const RAW = `
WITH responses AS MATERIALIZED (
  SELECT r.* FROM unnest($2::uuid[]) AS s(id)
  CROSS JOIN LATERAL (
    SELECT DISTINCT ON (e.submission_key) e.uuid, e.timestamp, e.person_id
      FROM survey_events e
     WHERE e.project_id = $1 AND e.survey_id = s.id AND e.kind = 3 AND e.timestamp >= ${FROM} AND e.timestamp <= ${TO}
     ORDER BY e.submission_key DESC, e.timestamp DESC, e.uuid DESC) r
  WHERE NOT (r.uuid = ANY($5::uuid[]))
),
${kindFigures(1, 'shown')},
${kindFigures(2, 'dismissed')},
sent AS (SELECT count(*) AS events, ${micros('min(timestamp)')} AS first, ${micros('max(timestamp)')} AS last,
                (SELECT count(*) FROM (SELECT DISTINCT person_id FROM responses WHERE person_id IS NOT NULL) d) AS persons
           FROM responses),
dismissed_and_sent AS (
  SELECT count(*) AS persons
    FROM (SELECT DISTINCT person_id FROM survey_events WHERE kind = 2 AND person_id IS NOT NULL AND ${IN_WINDOW}) d
    JOIN (SELECT DISTINCT person_id FROM survey_events WHERE kind = 3 AND person_id IS NOT NULL AND ${IN_WINDOW}) s USING (person_id)
)
SELECT shown.events AS shown_events, shown.persons AS shown_persons, shown.first AS shown_first, shown.last AS shown_last,
       dismissed.events AS dismissed_events, dismissed.persons AS dismissed_persons,
       dismissed.first AS dismissed_first, dismissed.last AS dismissed_last,
       sent.events AS responses, sent.persons AS responding_persons, sent.first AS responses_first, sent.last AS responses_last,
       dismissed_and_sent.persons AS dismissed_and_sent_persons
  FROM shown, dismissed, sent, dismissed_and_sent`;

/** The numbers straight from the window's events, for one survey or several together. */
export async function rawNumbers(
  db: ReadHandle,
  projectId: number,
  surveyIds: readonly string[],
  window: Window,
  archived: readonly string[],
): Promise<RawSurveyNumbers> {
  const { rows } = await db.query<NumbersRow>(RAW, [projectId, surveyIds, window.from, window.to, archived]);
  return numbersOf(rows[0]);
}

/**
 * Several surveys over all time, nothing archived left out (global stats without dates): totals
 * and edges summed from the rollups, persons counted once across the surveys from survey_persons.
 */
export async function allTimeNumbers(db: ReadHandle, projectId: number, surveyIds: readonly string[]): Promise<RawSurveyNumbers> {
  const { rows } = await db.query<NumbersRow>(
    `WITH persons AS (
       SELECT count(*) FILTER (WHERE shown > 0) AS shown, count(*) FILTER (WHERE dismissed > 0) AS dismissed,
              count(*) FILTER (WHERE responses > 0) AS responding,
              count(*) FILTER (WHERE dismissed > 0 AND sent > 0) AS dismissed_and_sent
         FROM (SELECT sum(shown) AS shown, sum(dismissed) AS dismissed, sum(sent) AS sent, sum(responses) AS responses
                 FROM survey_persons WHERE project_id = $1 AND survey_id = ANY($2::uuid[])
                GROUP BY person_id) per_person
     ),
     edges AS (
       SELECT min(f.shown_first) AS shown_first, max(f.shown_last) AS shown_last,
              min(f.dismissed_first) AS dismissed_first, max(f.dismissed_last) AS dismissed_last,
              min(f.responses_first) AS responses_first, max(f.responses_last) AS responses_last
         FROM unnest($2::uuid[]) AS s(id)
         CROSS JOIN LATERAL (SELECT
           (SELECT timestamp FROM survey_events WHERE project_id = $1 AND survey_id = s.id AND kind = 1 AND NOT partial ORDER BY timestamp LIMIT 1) AS shown_first,
           (SELECT timestamp FROM survey_events WHERE project_id = $1 AND survey_id = s.id AND kind = 1 AND NOT partial ORDER BY timestamp DESC LIMIT 1) AS shown_last,
           (SELECT timestamp FROM survey_events WHERE project_id = $1 AND survey_id = s.id AND kind = 2 AND NOT partial ORDER BY timestamp LIMIT 1) AS dismissed_first,
           (SELECT timestamp FROM survey_events WHERE project_id = $1 AND survey_id = s.id AND kind = 2 AND NOT partial ORDER BY timestamp DESC LIMIT 1) AS dismissed_last,
           (SELECT latest_at FROM survey_submissions WHERE project_id = $1 AND survey_id = s.id ORDER BY latest_at LIMIT 1) AS responses_first,
           (SELECT latest_at FROM survey_submissions WHERE project_id = $1 AND survey_id = s.id ORDER BY latest_at DESC LIMIT 1) AS responses_last) f
     )
     SELECT coalesce(sum(t.shown_events), 0)::int AS shown_events, (SELECT shown FROM persons) AS shown_persons,
            ${micros('(SELECT shown_first FROM edges)')} AS shown_first, ${micros('(SELECT shown_last FROM edges)')} AS shown_last,
            coalesce(sum(t.dismissed_events), 0)::int AS dismissed_events, (SELECT dismissed FROM persons) AS dismissed_persons,
            ${micros('(SELECT dismissed_first FROM edges)')} AS dismissed_first, ${micros('(SELECT dismissed_last FROM edges)')} AS dismissed_last,
            coalesce(sum(t.submissions), 0)::int AS responses, (SELECT responding FROM persons) AS responding_persons,
            ${micros('(SELECT responses_first FROM edges)')} AS responses_first, ${micros('(SELECT responses_last FROM edges)')} AS responses_last,
            (SELECT dismissed_and_sent FROM persons) AS dismissed_and_sent_persons
       FROM survey_response_totals t
      WHERE t.project_id = $1 AND t.survey_id = ANY($2::uuid[])`,
    [projectId, surveyIds],
  );
  return numbersOf(rows[0]);
}

/** The project's surveys that are not archived (drafts included): the scope of global stats. */
export async function activeSurveyIds(db: ReadHandle, projectId: number): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id::text AS id FROM surveys WHERE project_id = $1 AND NOT archived ORDER BY id', [projectId]);
  return rows.map((row) => row.id);
}
