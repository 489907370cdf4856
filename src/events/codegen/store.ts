import type { ReadHandle } from '../../db/pool.ts';

/** The `$` events the generators include besides every name that does not start with `$`. */
export const INCLUDED_DOLLAR_EVENTS = ['$pageview', '$pageleave', '$screen'];

export interface IncludedEvent {
  id: string;
  name: string;
}

/** One property of a schema property group attached to an event (a group's row, not de-duplicated). */
export interface SchemaPropertyRow {
  event_definition_id: string;
  name: string;
  property_type: string;
  is_required: boolean;
  is_optional_in_types: boolean;
}

/** A property seen on an event by ingestion, with the type ingestion detected (null: unknown). */
export interface ObservedPropertyRow {
  event: string;
  name: string;
  property_type: string | null;
}

/** The project's events the generators include, by name in byte (code point) order. */
export async function includedEvents(db: ReadHandle, projectId: number): Promise<IncludedEvent[]> {
  const { rows } = await db.query<IncludedEvent>(
    `SELECT id::text AS id, name FROM event_definitions
      WHERE project_id = $1 AND (left(name, 1) <> '$' OR name = ANY($2::text[]))
      ORDER BY name COLLATE "C"`,
    [projectId, INCLUDED_DOLLAR_EVENTS],
  );
  return rows;
}

/**
 * The properties of every schema property group attached to the given events: groups in the order
 * they were attached (then by name), properties by name within a group.
 */
export async function schemaProperties(db: ReadHandle, projectId: number, eventIds: string[]): Promise<SchemaPropertyRow[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await db.query<SchemaPropertyRow>(
    `SELECT s.event_definition_id::text AS event_definition_id, p.name, p.property_type, p.is_required, p.is_optional_in_types
       FROM event_schemas s
       JOIN schema_property_groups g ON g.id = s.property_group_id AND g.project_id = $1
       JOIN schema_property_group_properties p ON p.property_group_id = g.id
      WHERE s.event_definition_id = ANY($2::uuid[])
      ORDER BY s.event_definition_id, s.created_at, g.name COLLATE "C", g.id, p.name COLLATE "C"`,
    [projectId, eventIds],
  );
  return rows;
}

/**
 * What ingestion saw on the given events: their event properties, minus the SDK's own `$`
 * properties, each with the type of its event property definition (null when there is none, or
 * when ingestion could not tell). By name in byte order within an event.
 */
export async function observedProperties(db: ReadHandle, projectId: number, eventNames: string[]): Promise<ObservedPropertyRow[]> {
  if (eventNames.length === 0) return [];
  const { rows } = await db.query<ObservedPropertyRow>(
    `SELECT ep.event, ep.property AS name, pd.property_type
       FROM event_properties ep
       LEFT JOIN property_definitions pd
         ON pd.project_id = ep.project_id AND pd.type = 1 AND pd.group_type_index IS NULL AND pd.name = ep.property
      WHERE ep.project_id = $1 AND ep.event = ANY($2::text[]) AND left(ep.property, 1) <> '$'
      ORDER BY ep.event COLLATE "C", ep.property COLLATE "C"`,
    [projectId, eventNames],
  );
  return rows;
}
