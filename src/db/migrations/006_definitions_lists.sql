-- Indexes for the definition lists' default orders and the reads ingestion and the API make;
-- updated_at for schema properties (PostHog's property body carries it).

-- Event definitions, default order: last_seen_at::date DESC NULLS LAST, name ASC (byte-wise).
-- The date is taken in UTC so that the expression is immutable (indexable) and the same for
-- every server whatever its TimeZone setting.
CREATE INDEX event_definitions_seen_order_idx
  ON event_definitions (project_id, ((last_seen_at AT TIME ZONE 'UTC')::date) DESC NULLS LAST, name COLLATE "C");
CREATE INDEX event_definitions_name_order_idx
  ON event_definitions (project_id, name COLLATE "C");

-- Property definitions are listed per (project, type) in byte-wise name order.
CREATE INDEX property_definitions_name_order_idx
  ON property_definitions (project_id, type, name COLLATE "C");

-- Deleting a property definition removes its event_properties rows (looked up by property).
CREATE INDEX event_properties_property_idx ON event_properties (project_id, property);

-- Which groups an event definition uses (event_schemas by group; the unique key serves by event).
CREATE INDEX event_schemas_group_idx ON event_schemas (property_group_id);

ALTER TABLE schema_property_group_properties
  ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
