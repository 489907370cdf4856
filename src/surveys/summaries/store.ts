/** SQL of the local summaries: the answers they read and the caches on the survey row. */
import type { ReadHandle } from '../../db/pool.ts';
import type { PoolWrite } from '../../db/unit-of-work.ts';

/** Enough rows that dropping predefined choices and low-quality answers still leaves 100. */
const ANSWER_ROWS = 1000;

/*
 * Responses are read through `survey_events` (the narrow survey form of `events`, written at
 * ingestion; see docs/surveys.md): its indexes give the newest `survey sent` events of a survey in
 * time order and each event's later siblings in its submission, so a page of responses costs the
 * page, not the survey's history. Parameters: $1 project, $2 survey, $3..$4 the window [from, to).
 */
const SENT_IN_WINDOW = `se.project_id = $1 AND se.survey_id = $2::uuid AND se.kind = 3 AND NOT se.partial
     AND se.timestamp >= $3 AND se.timestamp < $4`;

/** The event is the latest of its submission inside the window (events without a submission id are their own). */
const LATEST_OF_SUBMISSION = `NOT EXISTS (SELECT 1 FROM survey_events later
   WHERE later.project_id = $1 AND later.survey_id = $2::uuid AND later.kind = 3
     AND later.submission_key = se.submission_key AND later.timestamp < $4
     AND (later.timestamp, later.uuid) > (se.timestamp, se.uuid))`;

const NOT_ARCHIVED = `NOT EXISTS (SELECT 1 FROM survey_response_archives a
   WHERE a.project_id = $1 AND a.survey_id = $2::uuid AND a.response_uuid = se.uuid)`;

const COMPLETED = `coalesce(e.properties->>'$survey_completed', 'true') = 'true'`;

export interface AnswerQuery {
  projectId: number;
  surveyId: string;
  from: Date;
  to: Date;
  /** The property keys of the answer, read in order (one or two). */
  keys: string[];
  /** Answers equal to one of these strings are skipped (a choice question's predefined choices). */
  skipExactly: string[];
}

/**
 * One answer per response (the latest event of each submission; events without a submission id
 * each count), newest first, archived responses left out, null and empty answers skipped.
 */
export async function loadAnswers(db: ReadHandle, query: AnswerQuery): Promise<unknown[]> {
  const [first, second = first] = query.keys;
  const answer = `coalesce(nullif(e.properties->$5, 'null'::jsonb), nullif(e.properties->$6, 'null'::jsonb))`;
  const { rows } = await db.query<{ answer: unknown }>(
    `SELECT x.answer FROM (
       SELECT ${answer} AS answer, se.timestamp, se.uuid
         FROM survey_events se JOIN events e ON e.project_id = se.project_id AND e.uuid = se.uuid
        WHERE ${SENT_IN_WINDOW} AND ${LATEST_OF_SUBMISSION} AND ${NOT_ARCHIVED}) x
      WHERE x.answer IS NOT NULL AND x.answer NOT IN ('""'::jsonb, '[]'::jsonb)
        AND NOT (jsonb_typeof(x.answer) = 'string' AND (x.answer #>> '{}') = ANY($7::text[]))
      ORDER BY x.timestamp DESC, x.uuid DESC
      LIMIT ${ANSWER_ROWS}`,
    [query.projectId, query.surveyId, query.from, query.to, first, second, query.skipExactly],
  );
  return rows.map((row) => row.answer);
}

export interface ResponseSampleQuery {
  projectId: number;
  surveyId: string;
  from: Date;
  to: Date;
  /** Partial responses on: the latest event of each submission; off: completed events only. */
  partialResponses: boolean;
  limit: number;
}

/** The newest responses' event properties, at most `limit` + 1 (the extra one tells that more exist). */
export async function loadResponseSample(db: ReadHandle, query: ResponseSampleQuery): Promise<Record<string, unknown>[]> {
  const which = query.partialResponses ? LATEST_OF_SUBMISSION : COMPLETED;
  const { rows } = await db.query<{ properties: Record<string, unknown> }>(
    `SELECT e.properties
       FROM survey_events se JOIN events e ON e.project_id = se.project_id AND e.uuid = se.uuid
      WHERE ${SENT_IN_WINDOW} AND ${which} AND ${NOT_ARCHIVED}
      ORDER BY se.timestamp DESC, se.uuid DESC
      LIMIT $5`,
    [query.projectId, query.surveyId, query.from, query.to, query.limit + 1],
  );
  return rows.map((row) => row.properties);
}

/** The persistent per-question entry of `question_summaries` (PostHog's keys). */
export interface StoredQuestionSummary {
  summary: string;
  responseCount: number;
  generatedAt: string;
  traceId: string;
}

/** Merges one question's entry into `question_summaries` (other questions' entries are kept). */
export async function saveQuestionSummary(db: PoolWrite, projectId: number, surveyId: string, questionId: string, entry: StoredQuestionSummary): Promise<void> {
  await db.query(
    `UPDATE surveys
        SET question_summaries = CASE WHEN jsonb_typeof(question_summaries) = 'object' THEN question_summaries ELSE '{}'::jsonb END
                                 || jsonb_build_object($3::text, $4::jsonb)
      WHERE project_id = $1 AND id = $2`,
    [projectId, surveyId, questionId, JSON.stringify(entry)],
  );
}

export async function saveHeadline(db: PoolWrite, projectId: number, surveyId: string, headline: string, responseCount: number): Promise<void> {
  await db.query('UPDATE surveys SET headline_summary = $3, headline_response_count = $4 WHERE project_id = $1 AND id = $2', [
    projectId,
    surveyId,
    headline,
    responseCount,
  ]);
}
