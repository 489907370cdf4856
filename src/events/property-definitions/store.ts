import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { userSummarySql, type UserSummary } from '../../accounts/users/user-summary.ts';
import { containsPattern } from '../taxonomy/params.ts';
import { Conditions } from '../taxonomy/sql.ts';
import type { PropertyListFilter } from './list-query.ts';

export interface PropertyRecord {
  id: string;
  project_id: number;
  name: string;
  type: number;
  group_type_index: number | null;
  property_type: string | null;
  is_numerical: boolean;
  description: string | null;
  tags: string[];
  verified: boolean;
  verified_at: Date | null;
  verified_by_id: number | null;
  verified_by: UserSummary | null;
  hidden: boolean;
  updated_at: Date;
  updated_by: UserSummary | null;
  is_seen_on_filtered_events: boolean | null;
}

export interface PropertyValues {
  description: string | null;
  tags: string[];
  property_type: string | null;
  is_numerical: boolean;
  verified: boolean;
  verified_at: Date | null;
  verified_by_id: number | null;
  hidden: boolean;
}

const columns = (seen: string) => `p.id, p.project_id, p.name, p.type, p.group_type_index, p.property_type, p.is_numerical,
       p.description, p.tags, p.verified, p.verified_at, p.verified_by_id, p.hidden, p.updated_at,
       ${userSummarySql('uu')} AS updated_by, ${userSummarySql('vu')} AS verified_by, ${seen} AS is_seen_on_filtered_events`;
const FROM = `FROM property_definitions p
  LEFT JOIN users uu ON uu.id = p.updated_by_id
  LEFT JOIN users vu ON vu.id = p.verified_by_id`;

export async function findProperty(db: ReadHandle, projectId: number, id: string, forUpdate = false): Promise<PropertyRecord | null> {
  const lock = forUpdate ? ' FOR UPDATE OF p' : '';
  const { rows } = await db.query<PropertyRecord>(
    `SELECT ${columns('NULL::boolean')} ${FROM} WHERE p.project_id = $1 AND p.id = $2${lock}`,
    [projectId, id],
  );
  return rows[0] ?? null;
}

export async function updateProperty(db: WriteTx, id: string, v: PropertyValues, userId: number): Promise<void> {
  await db.query(
    `UPDATE property_definitions
        SET description = $1, tags = $2, property_type = $3, is_numerical = $4, verified = $5, verified_at = $6,
            verified_by_id = $7, hidden = $8, updated_at = now(), updated_by_id = $9
      WHERE id = $10`,
    [v.description, v.tags, v.property_type, v.is_numerical, v.verified, v.verified_at, v.verified_by_id, v.hidden, userId, id],
  );
}

/** Deletes the definition; an event property also leaves event_properties (which events had it). */
export async function deleteProperty(db: WriteTx, row: PropertyRecord): Promise<void> {
  await db.query('DELETE FROM property_definitions WHERE id = $1', [row.id]);
  if (row.type === 1) {
    await db.query('DELETE FROM event_properties WHERE project_id = $1 AND property = $2', [row.project_id, row.name]);
  }
}

export async function listProperties(
  db: ReadHandle,
  projectId: number,
  filter: PropertyListFilter,
  page: Page,
): Promise<{ count: number; rows: PropertyRecord[] }> {
  const c = new Conditions();
  c.where(`p.project_id = ${c.param(projectId)}`);
  c.where(`p.type = ${c.param(filter.type)}`);
  if (filter.groupTypeIndex !== null) c.where(`p.group_type_index = ${c.param(filter.groupTypeIndex)}`);
  for (const term of filter.searchTerms) c.where(`p.name ILIKE ${c.param(containsPattern(term))}`);
  const seenWith = (placeholder: string) =>
    `EXISTS (SELECT 1 FROM event_properties ep WHERE ep.project_id = p.project_id AND ep.property = p.name
                AND ep.event = ANY(${placeholder}::text[]))`;
  let seen = 'NULL::boolean';
  if (filter.eventNames !== null && filter.filterByEventNames) {
    seen = seenWith(c.param(filter.eventNames));
    c.where(seen);
  }
  if (filter.names.length) c.where(`p.name = ANY(${c.param(filter.names)}::text[])`);
  if (filter.isNumerical !== null) c.where(`p.is_numerical = ${c.param(filter.isNumerical)}`);
  if (filter.isFeatureFlag === true) c.where(`p.name LIKE '$feature/%'`);
  if (filter.isFeatureFlag === false) c.where(`p.name NOT LIKE '$feature/%'`);
  if (filter.excludedNames.length) c.where(`NOT (p.name = ANY(${c.param(filter.excludedNames)}::text[]))`);
  if (filter.excludeHidden) c.where('NOT p.hidden');
  if (filter.excludeCore) c.where(`left(p.name, 1) <> '$'`);

  const where = c.sql();
  const count = db.query<{ n: number }>(`SELECT count(*)::int AS n FROM property_definitions p WHERE ${where}`, [...c.params]);
  // Only annotating (not filtering): the names are a parameter of the page query alone.
  if (filter.eventNames !== null && !filter.filterByEventNames) seen = seenWith(c.param(filter.eventNames));
  const order = filter.eventNames !== null ? `${seen} DESC, p.name COLLATE "C" ASC` : 'p.name COLLATE "C" ASC';
  const limit = c.param(page.limit);
  const offset = c.param(page.offset);
  const rows = db.query<PropertyRecord>(
    `SELECT ${columns(seen)} ${FROM} WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
    c.params,
  );
  const [counted, listed] = await Promise.all([count, rows]);
  return { count: counted.rows[0].n, rows: listed.rows };
}
