import type { ReadHandle } from '../../db/pool.ts';
import type { WriteTx } from '../../db/unit-of-work.ts';
import type { Page } from '../../kernel/http/pagination.ts';
import { userSummarySql } from '../../accounts/users/user-summary.ts';
import { isoSql } from '../taxonomy/sql.ts';
import type { EventSchema, PropertyGroup } from './schemas.ts';

/** A group as JSON (properties by name, linked events by name) from `schema_property_groups g` and its creator `cu`. */
const groupJson = (g: string, cu: string) => `json_build_object(
  'id', ${g}.id, 'name', ${g}.name, 'description', ${g}.description,
  'properties', COALESCE((SELECT json_agg(json_build_object(
      'id', sp.id, 'name', sp.name, 'property_type', sp.property_type, 'is_required', sp.is_required,
      'is_optional_in_types', sp.is_optional_in_types, 'description', sp.description,
      'created_at', ${isoSql('sp.created_at')}, 'updated_at', ${isoSql('sp.updated_at')}) ORDER BY sp.name COLLATE "C")
    FROM schema_property_group_properties sp WHERE sp.property_group_id = ${g}.id), '[]'::json),
  'events', COALESCE((SELECT json_agg(json_build_object('id', ed.id, 'name', ed.name) ORDER BY ed.name COLLATE "C")
    FROM event_schemas es JOIN event_definitions ed ON ed.id = es.event_definition_id
   WHERE es.property_group_id = ${g}.id), '[]'::json),
  'created_at', ${isoSql(`${g}.created_at`)}, 'updated_at', ${isoSql(`${g}.updated_at`)},
  'created_by', ${userSummarySql(cu)})`;

const SELECT_GROUP = `SELECT ${groupJson('g', 'cu')} AS body FROM schema_property_groups g LEFT JOIN users cu ON cu.id = g.created_by_id`;

export async function findGroup(db: ReadHandle, projectId: number, id: string): Promise<PropertyGroup | null> {
  const { rows } = await db.query<{ body: PropertyGroup }>(`${SELECT_GROUP} WHERE g.project_id = $1 AND g.id = $2`, [projectId, id]);
  return rows[0]?.body ?? null;
}

/** The group row alone (project, name), locked when asked. */
export async function findGroupRow(
  db: ReadHandle,
  id: string,
  forUpdate = false,
): Promise<{ id: string; project_id: number; name: string } | null> {
  const { rows } = await db.query<{ id: string; project_id: number; name: string }>(
    `SELECT id, project_id, name FROM schema_property_groups WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ?? null;
}

export async function listGroups(db: ReadHandle, projectId: number, page: Page): Promise<{ count: number; results: PropertyGroup[] }> {
  const [count, rows] = await Promise.all([
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_property_groups WHERE project_id = $1', [projectId]),
    db.query<{ body: PropertyGroup }>(`${SELECT_GROUP} WHERE g.project_id = $1 ORDER BY g.name COLLATE "C" LIMIT $2 OFFSET $3`, [
      projectId,
      page.limit,
      page.offset,
    ]),
  ]);
  return { count: count.rows[0].n, results: rows.rows.map((r) => r.body) };
}

export async function groupNameTaken(db: ReadHandle, projectId: number, name: string, exceptId: string | null): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM schema_property_groups WHERE project_id = $1 AND name = $2 AND id IS DISTINCT FROM $3::uuid',
    [projectId, name, exceptId],
  );
  return (rowCount ?? 0) > 0;
}

export async function insertGroup(db: WriteTx, projectId: number, name: string, description: string, userId: number): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO schema_property_groups (project_id, name, description, created_by_id) VALUES ($1, $2, $3, $4) RETURNING id',
    [projectId, name, description, userId],
  );
  return rows[0].id;
}

export async function updateGroup(db: WriteTx, id: string, name: string | undefined, description: string | undefined): Promise<void> {
  await db.query(
    `UPDATE schema_property_groups SET name = COALESCE($2, name), description = COALESCE($3, description), updated_at = now()
      WHERE id = $1`,
    [id, name ?? null, description ?? null],
  );
}

export async function deleteGroup(db: WriteTx, id: string): Promise<void> {
  await db.query('DELETE FROM schema_property_groups WHERE id = $1', [id]);
}

export interface StoredProperty {
  id: string;
  name: string;
  property_type: string;
  is_required: boolean;
  is_optional_in_types: boolean;
  description: string;
  created_at: Date;
  updated_at: Date;
}

export async function groupProperties(db: ReadHandle, groupId: string): Promise<StoredProperty[]> {
  const { rows } = await db.query<StoredProperty>(
    `SELECT id, name, property_type, is_required, is_optional_in_types, description, created_at, updated_at
       FROM schema_property_group_properties WHERE property_group_id = $1`,
    [groupId],
  );
  return rows;
}

/**
 * Replaces the group's properties with `properties` in two statements (delete all, insert all),
 * so that renames and swaps never trip the (group, name) uniqueness half-way.
 */
export async function replaceGroupProperties(db: WriteTx, groupId: string, properties: StoredProperty[]): Promise<void> {
  await db.query('DELETE FROM schema_property_group_properties WHERE property_group_id = $1', [groupId]);
  if (properties.length === 0) return;
  const col = <K extends keyof StoredProperty>(key: K) => properties.map((p) => p[key]);
  await db.query(
    `INSERT INTO schema_property_group_properties
       (property_group_id, id, name, property_type, is_required, is_optional_in_types, description, created_at, updated_at)
     SELECT $1, * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::boolean[], $6::boolean[], $7::text[], $8::timestamptz[], $9::timestamptz[])`,
    [
      groupId,
      col('id'),
      col('name'),
      col('property_type'),
      col('is_required'),
      col('is_optional_in_types'),
      col('description'),
      col('created_at'),
      col('updated_at'),
    ],
  );
}

// --- event schemas -------------------------------------------------------------------------

const SELECT_SCHEMA = `SELECT s.id, s.event_definition_id AS event_definition, ${groupJson('g', 'cu')} AS property_group,
       ${isoSql('s.created_at')} AS created_at, ${isoSql('s.updated_at')} AS updated_at
  FROM event_schemas s
  JOIN event_definitions d ON d.id = s.event_definition_id
  JOIN schema_property_groups g ON g.id = s.property_group_id
  LEFT JOIN users cu ON cu.id = g.created_by_id`;

export async function listEventSchemas(
  db: ReadHandle,
  projectId: number,
  eventDefinitionId: string | null,
  page: Page,
): Promise<{ count: number; results: EventSchema[] }> {
  const filter = 'd.project_id = $1 AND ($2::uuid IS NULL OR s.event_definition_id = $2::uuid)';
  const [count, rows] = await Promise.all([
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM event_schemas s JOIN event_definitions d ON d.id = s.event_definition_id WHERE ${filter}`,
      [projectId, eventDefinitionId],
    ),
    db.query<EventSchema>(`${SELECT_SCHEMA} WHERE ${filter} ORDER BY s.created_at, s.id LIMIT $3 OFFSET $4`, [
      projectId,
      eventDefinitionId,
      page.limit,
      page.offset,
    ]),
  ]);
  return { count: count.rows[0].n, results: rows.rows };
}

export async function findEventSchema(db: ReadHandle, projectId: number, id: string): Promise<EventSchema | null> {
  const { rows } = await db.query<EventSchema>(`${SELECT_SCHEMA} WHERE d.project_id = $1 AND s.id = $2`, [projectId, id]);
  return rows[0] ?? null;
}

export async function eventDefinitionInProject(db: ReadHandle, projectId: number, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM event_definitions WHERE project_id = $1 AND id = $2', [projectId, id]);
  return (rowCount ?? 0) > 0;
}

export async function linkExists(db: ReadHandle, eventDefinitionId: string, groupId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM event_schemas WHERE event_definition_id = $1 AND property_group_id = $2', [
    eventDefinitionId,
    groupId,
  ]);
  return (rowCount ?? 0) > 0;
}

export async function insertEventSchema(db: WriteTx, eventDefinitionId: string, groupId: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO event_schemas (event_definition_id, property_group_id) VALUES ($1, $2) RETURNING id',
    [eventDefinitionId, groupId],
  );
  return rows[0].id;
}

export async function deleteEventSchema(db: WriteTx, id: string): Promise<void> {
  await db.query('DELETE FROM event_schemas WHERE id = $1', [id]);
}
