/**
 * SQL of the responses list and its CSV export. A response is the latest `survey sent` event of
 * its submission inside the window (the summaries' and the statistics' rule), read from
 * `survey_events` newest first by (timestamp, uuid) through survey_events_responses_idx, so a page
 * costs the page. Whether a row is its submission's latest inside the window, and what it shows
 * (distinct id, answers, completeness), are on the survey_events row itself (migration 015):
 * neither `events` nor the submission's other events are read. A search is narrowed by the trigram index over the answers' text
 * (when pg_trgm is installed), then tested exactly on the open answers' keys.
 */
import type { ReadHandle } from '../../db/pool.ts';
import { answerIn, type SurveyQuestion } from '../summaries/questions.ts';

/** A position in the list: the (timestamp, uuid) of a response, timestamps in microseconds. */
export interface ListPosition {
  micros: bigint;
  uuid: string;
}

export interface ResponseQuery {
  projectId: number;
  surveyId: string;
  /** Inclusive bounds, timestamptz text; null = open. */
  from: string | null;
  to: string | null;
  /** The survey's questions: a row's answers are read for each, in this order. */
  questions: SurveyQuestion[];
  /** The property keys whose text a search looks in (open answers). */
  searchKeys: string[];
  /** An ILIKE pattern, already escaped; null = no search. */
  searchPattern: string | null;
  /**
   * A search with few matches in the window: every matching event's uuid (found through the
   * trigram index), read by primary key and sorted; null = walk the list in order and test each.
   */
  searchMatches: string[] | null;
  excludeArchived: boolean;
  /** The person properties shown with each response. */
  personKeys: string[];
  /** Rows strictly after this position in the reading direction. */
  after: ListPosition | null;
  /** false: newest first (the list's order); true: oldest first (walking back for `previous`). */
  ascending: boolean;
  limit: number;
}

export interface ResponseRow {
  uuid: string;
  /** Microseconds since the epoch, as text (exact). */
  micros: string;
  distinct_id: string;
  /** One entry per question of the query, null where the event has no answer. */
  answers: unknown[];
  partial: boolean;
  archived: boolean;
  person_uuid: string | null;
  person_properties: Record<string, unknown> | null;
}

const TO = `coalesce($4::timestamptz, 'infinity')`;
const AT = (micros: string) => `('epoch'::timestamptz + ${micros}::bigint * interval '1 microsecond')`;

/** The statement and its parameters for one page (or one batch of the export). */
export function responsePageSql(query: ResponseQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [
    query.projectId,
    query.surveyId,
    query.from,
    query.to,
    query.personKeys,
  ];
  const add = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = [
    'se.project_id = $1',
    'se.survey_id = $2::uuid',
    'se.kind = 3',
    // Always true of `survey sent` rows; it matches survey_events_responses_idx (migration 013).
    'NOT se.partial',
    `se.timestamp >= coalesce($3::timestamptz, '-infinity')`,
    `se.timestamp <= ${TO}`,
    // The latest event of its submission inside the window (later partial answers replace it).
    `(se.superseded_at IS NULL OR se.superseded_at > ${TO})`,
  ];
  if (query.after) {
    const at = AT(add(query.after.micros.toString()));
    const uuid = `${add(query.after.uuid)}::uuid`;
    const op = query.ascending ? '>' : '<';
    where.push(`(se.timestamp, se.uuid) ${op} (${at}, ${uuid})`);
  }
  if (query.excludeArchived) where.push('NOT a.archived');
  if (query.searchPattern !== null) {
    const pattern = add(query.searchPattern);
    // The first test is what survey_events_answers_trgm_idx answers (a superset); the second is the rule.
    where.push(`survey_answers_text(se.answers) ILIKE ${pattern}`);
    where.push(`EXISTS (SELECT 1 FROM unnest(${add(query.searchKeys)}::text[]) k WHERE se.answers ->> k ILIKE ${pattern})`);
  }
  if (query.searchMatches !== null) where.push(`se.uuid = ANY(${add(query.searchMatches)}::uuid[])`);
  const order = query.ascending ? 'ASC' : 'DESC';
  const text = `
    SELECT se.uuid::text AS uuid,
           (extract(epoch FROM se.timestamp) * 1000000)::bigint::text AS micros,
           se.distinct_id,
           coalesce(se.answers, '{}'::jsonb) AS answers,
           coalesce(se.incomplete, false) AS partial,
           a.archived,
           p.uuid::text AS person_uuid,
           CASE WHEN p.id IS NULL THEN NULL
                ELSE coalesce((SELECT jsonb_object_agg(k, p.properties -> k) FROM unnest($5::text[]) k WHERE p.properties ? k), '{}'::jsonb) END
             AS person_properties
      FROM survey_events se
      CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM survey_response_archives r
                                          WHERE r.project_id = $1 AND r.survey_id = $2::uuid AND r.response_uuid = se.uuid) AS archived) a
      LEFT JOIN person_distinct_ids d ON d.project_id = se.project_id AND d.distinct_id = se.distinct_id
      LEFT JOIN persons p ON p.id = d.person_id
     WHERE ${where.join('\n       AND ')}
     ORDER BY se.timestamp ${order}, se.uuid ${order}
     LIMIT ${add(query.limit)}`;
  return { text, values };
}

/** The conditions of a search (besides the survey's): the index's superset, then the rule. */
const SEARCH_MATCH = `survey_answers_text(se.answers) ILIKE $5 AND EXISTS (SELECT 1 FROM unnest($6::text[]) k WHERE se.answers ->> k ILIKE $5)`;

/**
 * The search's matches in the window when there are at most `max` (their uuids), else null: a
 * bitmap scan of survey_events_answers_trgm_idx (with pg_trgm; without it a scan of the survey's
 * responses, bounded by the read's timeout). `partial` is left unsaid so that no index of the
 * list's order fits this statement.
 */
export async function fewSearchMatches(
  db: ReadHandle,
  query: Pick<ResponseQuery, 'projectId' | 'surveyId' | 'from' | 'to' | 'searchKeys'> & { searchPattern: string },
  max: number,
): Promise<string[] | null> {
  const { rows } = await db.query<{ uuid: string }>(
    `SELECT se.uuid::text AS uuid FROM survey_events se
      WHERE se.project_id = $1 AND se.survey_id = $2::uuid AND se.kind = 3
        AND se.timestamp >= coalesce($3::timestamptz, '-infinity') AND se.timestamp <= ${TO}
        AND (se.superseded_at IS NULL OR se.superseded_at > ${TO})
        AND ${SEARCH_MATCH}
      LIMIT $7`,
    [query.projectId, query.surveyId, query.from, query.to, query.searchPattern, query.searchKeys, max + 1],
  );
  return rows.length > max ? null : rows.map((row) => row.uuid);
}

export async function loadResponsePage(db: ReadHandle, query: ResponseQuery): Promise<ResponseRow[]> {
  const { text, values } = responsePageSql(query);
  // A few known matches are read by key and sorted (the read may have ruled sorting out).
  if (query.searchMatches !== null) await db.query('SET LOCAL enable_sort = on');
  const { rows } = await db.query<Omit<ResponseRow, 'answers'> & { answers: Record<string, unknown> }>(text, values);
  return rows.map((row) => ({ ...row, answers: query.questions.map((q) => answerIn(row.answers, q) ?? null) }));
}
