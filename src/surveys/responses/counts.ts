import type { ReadHandle } from '../../db/pool.ts';
import { archivedUuidsOfProject } from './archive.ts';

export interface ResponseCountOptions {
  /** Only these surveys; undefined = every survey of the project. */
  surveyIds?: readonly string[];
  excludeArchived: boolean;
}

/**
 * Per survey in scope: its stored submissions, minus the submissions with an event outside the
 * survey's window or an archived event, plus those of them whose latest event inside the window
 * exists and is not archived. Costs what lies outside the windows, not the responses inside.
 */
const COUNTS = `
WITH scope AS MATERIALIZED (
  SELECT s.id AS survey_id, coalesce(s.start_date, s.created_at) AS from_at, s.end_date AS to_at
    FROM surveys s
   WHERE s.project_id = $1 AND ($2::uuid[] IS NULL OR s.id = ANY($2::uuid[]))
),
gone AS (
  SELECT sc.survey_id, e.submission_key
    FROM scope sc
    JOIN survey_events e ON e.project_id = $1 AND e.survey_id = sc.survey_id AND e.kind = 3 AND NOT e.partial
                        AND e.timestamp < sc.from_at
  UNION ALL
  SELECT sc.survey_id, e.submission_key
    FROM scope sc
    JOIN survey_events e ON e.project_id = $1 AND e.survey_id = sc.survey_id AND e.kind = 3 AND NOT e.partial
                        AND e.timestamp > sc.to_at
  UNION ALL
  SELECT e.survey_id, e.submission_key
    FROM survey_events e JOIN scope sc ON sc.survey_id = e.survey_id
   WHERE e.project_id = $1 AND e.uuid = ANY($3::uuid[]) AND e.kind = 3
),
affected AS (SELECT DISTINCT survey_id, submission_key FROM gone),
corrections AS (
  SELECT a.survey_id, count(*) AS affected, count(*) FILTER (WHERE w.uuid IS NOT NULL AND NOT (w.uuid = ANY($3::uuid[]))) AS kept
    FROM affected a
    JOIN scope sc ON sc.survey_id = a.survey_id
    LEFT JOIN LATERAL (
      SELECT e.uuid FROM survey_events e
       WHERE e.project_id = $1 AND e.survey_id = a.survey_id AND e.kind = 3 AND e.submission_key = a.submission_key
         AND e.timestamp >= sc.from_at AND e.timestamp <= coalesce(sc.to_at, 'infinity')
       ORDER BY e.timestamp DESC, e.uuid DESC LIMIT 1) w ON true
   GROUP BY a.survey_id
)
SELECT t.survey_id::text AS survey_id, t.submissions - coalesce(c.affected, 0) + coalesce(c.kept, 0) AS responses
  FROM survey_response_totals t
  JOIN scope sc ON sc.survey_id = t.survey_id
  LEFT JOIN corrections c ON c.survey_id = t.survey_id
 WHERE t.project_id = $1`;

/**
 * Responses per survey: de-duplicated `survey sent` submissions, each survey counted
 * inside its own window (start_date or created_at .. end_date). Surveys without responses are absent.
 * Used by `responses_count` and by the lifecycle job that stops surveys at `responses_limit`.
 * With `excludeArchived`, a response archived under any survey of the project is left out.
 */
export async function surveyResponseCounts(db: ReadHandle, projectId: number, options: ResponseCountOptions): Promise<Map<string, number>> {
  if (options.surveyIds !== undefined && options.surveyIds.length === 0) return new Map();
  const archived = options.excludeArchived ? await archivedUuidsOfProject(db, projectId) : [];
  const { rows } = await db.query<{ survey_id: string; responses: number }>(COUNTS, [projectId, options.surveyIds ?? null, archived]);
  const counts = new Map<string, number>();
  for (const row of rows) if (row.responses > 0) counts.set(row.survey_id, row.responses);
  return counts;
}
