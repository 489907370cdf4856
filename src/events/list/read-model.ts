/**
 * The events list's query: the project's events newest (or oldest) first by (timestamp, uuid),
 * through events_time_idx, events_distinct_id_time_idx or events_name_time_idx (migrations 003,
 * 013), each event with the current person of its distinct id.
 */
import type { ReadHandle } from '../../db/pool.ts';
import { Params, propertyGroupSql, readsOwner } from '../persons/property-filter-sql.ts';
import type { Bound, EventListArgs } from './args.ts';

export const PERSON_KEYS = ['email', 'name', 'username'];

export interface EventRow {
  id: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  event: string;
  /** ISO 8601 UTC with microseconds (exact: it becomes the next page's bound). */
  timestamp: string;
  person_uuid: string | null;
  person_identified: boolean | null;
  person_first_distinct_id: string | null;
  person_properties: Record<string, unknown> | null;
}

function boundSql(column: string, bound: Bound, op: '<' | '>', params: Params): string {
  const at = `${params.add(bound.at)}::timestamptz`;
  if (bound.uuid === null) return `${column}.timestamp ${op} ${at}`;
  return `(${column}.timestamp, ${column}.uuid) ${op} (${at}, ${params.add(bound.uuid)}::uuid)`;
}

/** At most `limit` rows (ask one more to know whether a next page exists). */
export async function listEvents(db: ReadHandle, projectId: number, args: EventListArgs, limit: number): Promise<EventRow[]> {
  const params = new Params();
  const project = params.add(projectId);
  const where = [`e.project_id = ${project}`, `e.timestamp <= now() + interval '5 seconds'`];
  if (args.event !== null) where.push(`e.event = ${params.add(args.event)}::text`);
  if (args.distinctId !== null) where.push(`e.distinct_id = ${params.add(args.distinctId)}::text`);
  if (args.personId !== null) {
    const person = /^\d+$/.test(args.personId) ? `p2.id = ${params.add(args.personId)}::bigint` : `p2.uuid = ${params.add(args.personId)}::uuid`;
    where.push(`e.distinct_id IN (SELECT d2.distinct_id FROM person_distinct_ids d2 JOIN persons p2 ON p2.id = d2.person_id
                                   WHERE d2.project_id = ${project} AND p2.project_id = ${project} AND ${person})`);
  }
  if (args.before) where.push(boundSql('e', args.before, '<', params));
  if (args.after) where.push(boundSql('e', args.after, '>', params));
  if (args.properties) where.push(propertyGroupSql(args.properties, params, { event: 'e.properties', person: 'p.properties' }));
  const order = args.ascending ? 'ASC' : 'DESC';
  // Filtering on person properties needs the person in the scan; otherwise it is looked up for the page's rows only.
  const personFirst = args.properties !== null && readsOwner(args.properties, 'person');
  const personJoin = `LEFT JOIN person_distinct_ids d ON d.project_id = e.project_id AND d.distinct_id = e.distinct_id
      LEFT JOIN persons p ON p.id = d.person_id`;
  const text = `
    SELECT e.uuid::text AS id, e.distinct_id, e.properties, e.event,
           to_char(e.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS timestamp,
           p.uuid::text AS person_uuid, p.is_identified AS person_identified,
           (SELECT d3.distinct_id FROM person_distinct_ids d3 WHERE d3.person_id = p.id ORDER BY d3.seq LIMIT 1) AS person_first_distinct_id,
           CASE WHEN p.id IS NULL THEN NULL
                ELSE coalesce((SELECT jsonb_object_agg(k, p.properties -> k) FROM unnest(${params.add(PERSON_KEYS)}::text[]) k WHERE p.properties ? k), '{}'::jsonb) END
             AS person_properties
      FROM (SELECT e.* FROM events e ${personFirst ? personJoin : ''}
             WHERE ${where.join(' AND ')}
             ORDER BY e.timestamp ${order}, e.uuid ${order}
             LIMIT ${params.add(limit)}) e
      ${personJoin}
     ORDER BY e.timestamp ${order}, e.uuid ${order}`;
  const { rows } = await db.query<EventRow>(text, params.values);
  return rows;
}
