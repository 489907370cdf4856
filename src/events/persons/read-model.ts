import type { ReadHandle } from '../../db/pool.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import type { Properties } from './properties.ts';
import type { PropertyGroup } from './property-filter.ts';
import { Params, propertyGroupSql } from './property-filter-sql.ts';

/** Reads of persons for the API (the read model; resolution writes through store.ts). */

export interface PersonRow {
  id: number;
  uuid: string;
  properties: Properties;
  is_identified: boolean;
  created_at: Date;
  distinct_ids: string[];
  /** The newest event of any of its distinct ids. */
  last_seen_at: Date | null;
}

export interface PersonListFilter {
  distinctId?: string;
  email?: string;
  search?: string;
  properties?: PropertyGroup;
}

const SELECT_PERSON = `
  SELECT p.id, p.uuid, p.properties, p.is_identified, p.created_at,
         ARRAY(SELECT d.distinct_id FROM person_distinct_ids d WHERE d.person_id = p.id ORDER BY d.seq) AS distinct_ids,
         -- The newest event of any of its distinct ids, exact: one backward step down
         -- events_distinct_id_time_idx per distinct id.
         (SELECT max(newest.timestamp)
            FROM person_distinct_ids d
            CROSS JOIN LATERAL (SELECT e.timestamp FROM events e
                                 WHERE e.project_id = p.project_id AND e.distinct_id = d.distinct_id
                                 ORDER BY e.timestamp DESC LIMIT 1) newest
           WHERE d.person_id = p.id) AS last_seen_at
    FROM persons p`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function whereOf(projectId: number, filter: PersonListFilter, params: Params): string {
  const project = params.add(projectId);
  const clauses = [`p.project_id = ${project}`];
  if (filter.distinctId !== undefined) {
    clauses.push(`p.id = (SELECT person_id FROM person_distinct_ids WHERE project_id = ${project} AND distinct_id = ${params.add(filter.distinctId)}::text)`);
  }
  if (filter.email !== undefined) clauses.push(`(p.properties ->> 'email') = ${params.add(filter.email)}::text`);
  if (filter.search !== undefined) {
    const search = `${params.add(filter.search)}::text`;
    const alternatives = [
      `p.id = (SELECT person_id FROM person_distinct_ids WHERE project_id = ${project} AND distinct_id = ${search})`,
      `strpos(lower(p.properties ->> 'email'), lower(${search})) > 0`,
      `strpos(lower(p.properties ->> 'name'), lower(${search})) > 0`,
    ];
    if (UUID.test(filter.search)) alternatives.push(`p.uuid = ${search}::uuid`);
    clauses.push(`coalesce(${alternatives.join(' OR ')}, false)`);
  }
  if (filter.properties) clauses.push(propertyGroupSql(filter.properties, params, { person: 'p.properties' }));
  return clauses.join(' AND ');
}

/** A page of the project's persons, newest first, and how many match in all. */
export async function listPersons(db: ReadHandle, projectId: number, filter: PersonListFilter, page: Page): Promise<{ count: number; rows: PersonRow[] }> {
  const countParams = new Params();
  const countWhere = whereOf(projectId, filter, countParams);
  const listParams = new Params();
  const listWhere = whereOf(projectId, filter, listParams);
  const limit = listParams.add(page.limit);
  const offset = listParams.add(page.offset);
  const [count, list] = await Promise.all([
    db.query<{ count: number }>(`SELECT count(*)::int AS count FROM persons p WHERE ${countWhere}`, countParams.values),
    db.query<PersonRow>(`${SELECT_PERSON} WHERE ${listWhere} ORDER BY p.created_at DESC, p.id DESC LIMIT ${limit} OFFSET ${offset}`, listParams.values),
  ]);
  return { count: count.rows[0].count, rows: list.rows };
}

/** A person of the project by uuid or by its integer id; null when there is none. */
export async function findPerson(db: ReadHandle, projectId: number, id: string): Promise<PersonRow | null> {
  let where: string;
  if (UUID.test(id)) where = 'p.uuid = $2::uuid';
  else if (/^\d{1,15}$/.test(id)) where = 'p.id = $2::bigint';
  else return null;
  const { rows } = await db.query<PersonRow>(`${SELECT_PERSON} WHERE p.project_id = $1 AND ${where}`, [projectId, id]);
  return rows[0] ?? null;
}
