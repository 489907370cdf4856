/**
 * SQL of the responses list and its CSV export. A response is the latest `survey sent` event of
 * its submission inside the window (the summaries' and the statistics' rule), read from
 * `survey_events` newest first by (timestamp, uuid) through survey_events_responses_idx, so a page
 * costs the page: each row's latest sibling is looked up in survey_events_submission_idx. The
 * event's properties are read only for the answers (one jsonb array, in question order), the
 * `$survey_completed` flag and the open answers a search looks in.
 */
import type { Queryable } from '../../db/pool.ts';

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
  /** Per question, the id-based key and the index-based key of its answer (read in that order). */
  answerKeys: [string, string][];
  /** The property keys whose text a search looks in (open answers). */
  searchKeys: string[];
  /** An ILIKE pattern, already escaped; null = no search. */
  searchPattern: string | null;
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
    query.answerKeys.map(([id]) => id),
    query.answerKeys.map(([, index]) => index),
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
    // Always true of `survey sent` rows; it matches survey_events_responses_idx (migration 013),
    // which the per-row lookup below, not saying it, cannot use.
    'NOT se.partial',
    `se.timestamp >= coalesce($3::timestamptz, '-infinity')`,
    `se.timestamp <= ${TO}`,
    // The latest event of its submission inside the window (later partial answers replace it).
    'latest.uuid = se.uuid',
  ];
  if (query.after) {
    const at = AT(add(query.after.micros.toString()));
    const uuid = `${add(query.after.uuid)}::uuid`;
    const op = query.ascending ? '>' : '<';
    where.push(`(se.timestamp, se.uuid) ${op} (${at}, ${uuid})`);
  }
  if (query.excludeArchived) where.push('NOT a.archived');
  if (query.searchPattern !== null) {
    where.push(`EXISTS (SELECT 1 FROM unnest(${add(query.searchKeys)}::text[]) k WHERE e.properties ->> k ILIKE ${add(query.searchPattern)})`);
  }
  const order = query.ascending ? 'ASC' : 'DESC';
  const text = `
    SELECT se.uuid::text AS uuid,
           (extract(epoch FROM se.timestamp) * 1000000)::bigint::text AS micros,
           e.distinct_id,
           coalesce((SELECT jsonb_agg(coalesce(nullif(e.properties -> k.id, 'null'::jsonb), e.properties -> k.idx) ORDER BY k.n)
                       FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS k(id, idx, n)), '[]'::jsonb) AS answers,
           coalesce(e.properties ->> '$survey_completed', 'true') <> 'true' AS partial,
           a.archived,
           p.uuid::text AS person_uuid,
           CASE WHEN p.id IS NULL THEN NULL
                ELSE coalesce((SELECT jsonb_object_agg(k, p.properties -> k) FROM unnest($7::text[]) k WHERE p.properties ? k), '{}'::jsonb) END
             AS person_properties
      FROM survey_events se
      -- Looked up per row (LIMIT 1 down survey_events_submission_idx), so that stale statistics
      -- cannot turn it into a scan of the survey.
      CROSS JOIN LATERAL (SELECT later.uuid FROM survey_events later
                           WHERE later.project_id = $1 AND later.survey_id = $2::uuid AND later.kind = 3
                             AND later.submission_key = se.submission_key AND later.timestamp <= ${TO}
                           ORDER BY later.timestamp DESC, later.uuid DESC LIMIT 1) latest
      JOIN events e ON e.project_id = se.project_id AND e.uuid = se.uuid
      CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM survey_response_archives r
                                          WHERE r.project_id = $1 AND r.survey_id = $2::uuid AND r.response_uuid = se.uuid) AS archived) a
      LEFT JOIN person_distinct_ids d ON d.project_id = e.project_id AND d.distinct_id = e.distinct_id
      LEFT JOIN persons p ON p.id = d.person_id
     WHERE ${where.join('\n       AND ')}
     ORDER BY se.timestamp ${order}, se.uuid ${order}
     LIMIT ${add(query.limit)}`;
  return { text, values };
}

export async function loadResponsePage(db: Queryable, query: ResponseQuery): Promise<ResponseRow[]> {
  const { text, values } = responsePageSql(query);
  const { rows } = await db.query<ResponseRow>(text, values);
  return rows;
}
