import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { userSummarySql, type UserSummary } from '../../accounts/users/user-summary.ts';
import { containsPattern } from '../taxonomy/params.ts';
import { Conditions } from '../taxonomy/sql.ts';
import type { DefinitionListFilter, OrderKey } from './list-query.ts';

/** An event_definitions row with its users resolved. */
export interface DefinitionRecord {
  id: string;
  project_id: number;
  name: string;
  created_at: Date | null;
  last_seen_at: Date | null;
  owner_id: number | null;
  owner: UserSummary | null;
  description: string | null;
  updated_at: Date;
  updated_by: UserSummary | null;
  verified: boolean;
  verified_at: Date | null;
  verified_by_id: number | null;
  verified_by: UserSummary | null;
  hidden: boolean;
  default_columns: string[] | null;
  tags: string[];
  enforcement_mode: string;
  primary_property: string | null;
}

/** The values a create or an update writes. */
export interface DefinitionValues {
  owner_id: number | null;
  description: string | null;
  tags: string[];
  verified: boolean;
  verified_at: Date | null;
  verified_by_id: number | null;
  hidden: boolean;
  default_columns: string[] | null;
  enforcement_mode: string;
  primary_property: string | null;
}

const SELECT = `SELECT d.id, d.project_id, d.name, d.created_at, d.last_seen_at, d.owner_id, d.description, d.updated_at,
       d.verified, d.verified_at, d.verified_by_id, d.hidden, d.default_columns, d.tags, d.enforcement_mode,
       d.primary_property, ${userSummarySql('ou')} AS owner, ${userSummarySql('uu')} AS updated_by,
       ${userSummarySql('vu')} AS verified_by
  FROM event_definitions d
  LEFT JOIN users ou ON ou.id = d.owner_id
  LEFT JOIN users uu ON uu.id = d.updated_by_id
  LEFT JOIN users vu ON vu.id = d.verified_by_id`;

export async function findDefinition(db: ReadHandle, projectId: number, id: string, forUpdate = false): Promise<DefinitionRecord | null> {
  const lock = forUpdate ? ' FOR UPDATE OF d' : '';
  const { rows } = await db.query<DefinitionRecord>(`${SELECT} WHERE d.project_id = $1 AND d.id = $2${lock}`, [projectId, id]);
  return rows[0] ?? null;
}

export async function findDefinitionByName(db: ReadHandle, projectId: number, name: string): Promise<DefinitionRecord | null> {
  const { rows } = await db.query<DefinitionRecord>(`${SELECT} WHERE d.project_id = $1 AND d.name = $2`, [projectId, name]);
  return rows[0] ?? null;
}

export async function definitionNameTaken(db: ReadHandle, projectId: number, name: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM event_definitions WHERE project_id = $1 AND name = $2', [projectId, name]);
  return (rowCount ?? 0) > 0;
}

function valueParams(v: DefinitionValues): unknown[] {
  return [
    v.owner_id,
    v.description,
    v.tags,
    v.verified,
    v.verified_at,
    v.verified_by_id,
    v.hidden,
    v.default_columns,
    v.enforcement_mode,
    v.primary_property,
  ];
}

const VALUE_COLUMNS = [
  'owner_id',
  'description',
  'tags',
  'verified',
  'verified_at',
  'verified_by_id',
  'hidden',
  'default_columns',
  'enforcement_mode',
  'primary_property',
];

/** A definition made through the API: created_at and last_seen_at stay NULL until an event arrives. */
export async function insertDefinition(
  db: WriteTx,
  projectId: number,
  name: string,
  values: DefinitionValues,
  userId: number,
): Promise<string> {
  const params = [...valueParams(values), projectId, name, userId];
  const placeholders = VALUE_COLUMNS.map((_, i) => `$${i + 1}`);
  const n = VALUE_COLUMNS.length;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO event_definitions (${VALUE_COLUMNS.join(', ')}, project_id, name, updated_by_id, created_at, last_seen_at, updated_at)
     VALUES (${placeholders.join(', ')}, $${n + 1}, $${n + 2}, $${n + 3}, NULL, NULL, now())
     RETURNING id`,
    params,
  );
  return rows[0].id;
}

/** Every save stamps updated_at and updated_by, whether or not a value changed. */
export async function updateDefinition(db: WriteTx, id: string, values: DefinitionValues, userId: number): Promise<void> {
  const params = valueParams(values);
  const assignments = VALUE_COLUMNS.map((column, i) => `${column} = $${i + 1}`);
  await db.query(
    `UPDATE event_definitions SET ${assignments.join(', ')}, updated_at = now(), updated_by_id = $${params.length + 1}
      WHERE id = $${params.length + 2}`,
    [...params, userId, id],
  );
}

export async function deleteDefinition(db: WriteTx, id: string): Promise<void> {
  await db.query('DELETE FROM event_definitions WHERE id = $1', [id]);
}

/** The user is a member of the organization. */
export async function isOrganizationMember(db: ReadHandle, organizationId: string, userId: number): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM organization_memberships WHERE organization_id = $1 AND user_id = $2', [
    organizationId,
    userId,
  ]);
  return (rowCount ?? 0) > 0;
}

export async function userExists(db: ReadHandle, userId: number): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM users WHERE id = $1', [userId]);
  return (rowCount ?? 0) > 0;
}

const UTC_DATE = (column: string) => `((d.${column} AT TIME ZONE 'UTC')::date)`;

/** ORDER BY for the keys: ASC puts NULLs first, DESC last (PostHog); name is never NULL and compares byte-wise. */
function orderBy(keys: OrderKey[]): string {
  return keys
    .map(({ key, descending }) => {
      const direction = descending ? 'DESC' : 'ASC';
      if (key === 'name') return `d.name COLLATE "C" ${direction}`;
      const expr = key.endsWith('::date') ? UTC_DATE(key.slice(0, -6)) : `d.${key}`;
      return `${expr} ${direction} NULLS ${descending ? 'LAST' : 'FIRST'}`;
    })
    .join(', ');
}

function conditionsOf(projectId: number, filter: DefinitionListFilter): Conditions {
  const c = new Conditions();
  c.where(`d.project_id = ${c.param(projectId)}`);
  for (const term of filter.searchTerms) c.where(`d.name ILIKE ${c.param(containsPattern(term))}`);
  if (filter.eventType === 'event_custom') c.where(`left(d.name, 1) <> '$'`);
  if (filter.eventType === 'event_posthog') c.where(`left(d.name, 1) = '$'`);
  if (filter.excludeHidden) c.where('NOT d.hidden');
  if (filter.verified !== null) c.where(filter.verified ? 'd.verified' : 'NOT d.verified');
  if (filter.tags.length) c.where(`d.tags && ${c.param(filter.tags)}::text[]`);
  if (filter.excludedNames.length) c.where(`NOT (d.name = ANY(${c.param(filter.excludedNames)}::text[]))`);
  if (filter.names.length) c.where(`d.name = ANY(${c.param(filter.names)}::text[])`);
  return c;
}

export async function listDefinitions(
  db: ReadHandle,
  projectId: number,
  filter: DefinitionListFilter,
  page: Page,
): Promise<{ count: number; rows: DefinitionRecord[] }> {
  const c = conditionsOf(projectId, filter);
  const where = c.sql();
  const count = db.query<{ n: number }>(`SELECT count(*)::int AS n FROM event_definitions d WHERE ${where}`, [...c.params]);
  const limit = c.param(page.limit);
  const offset = c.param(page.offset);
  const rows = db.query<DefinitionRecord>(`${SELECT} WHERE ${where} ORDER BY ${orderBy(filter.order)} LIMIT ${limit} OFFSET ${offset}`, c.params);
  const [counted, listed] = await Promise.all([count, rows]);
  return { count: counted.rows[0].n, rows: listed.rows };
}

/** Events of that name stored in the last 30 days, and the newest one's time. */
export async function eventVolume(db: ReadHandle, projectId: number, name: string): Promise<{ volume: number; lastSeen: Date | null }> {
  const { rows } = await db.query<{ volume: number; last_seen: Date | null }>(
    `SELECT (SELECT count(*)::int FROM events
              WHERE project_id = $1 AND event = $2 AND timestamp > now() - interval '30 days') AS volume,
            (SELECT max(timestamp) FROM events WHERE project_id = $1 AND event = $2) AS last_seen`,
    [projectId, name],
  );
  return { volume: rows[0].volume, lastSeen: rows[0].last_seen };
}

/** Events of that name per UTC day from `from` (a UTC midnight) on; days without events are absent. */
export async function eventVolumeByDay(db: ReadHandle, projectId: number, name: string, from: Date): Promise<Array<{ day: string; count: number }>> {
  const { rows } = await db.query<{ day: string; count: number }>(
    `SELECT to_char((timestamp AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, count(*)::int AS count
       FROM events
      WHERE project_id = $1 AND event = $2 AND timestamp >= $3
      GROUP BY 1`,
    [projectId, name, from],
  );
  return rows;
}
