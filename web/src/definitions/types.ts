/** The event-definition API's answers, as the console reads them. */
import type { UserSummary } from '../api/types.ts';

export interface EventDefinition {
  id: string;
  name: string;
  owner: UserSummary | null;
  description: string;
  tags: string[];
  created_at: string | null;
  updated_at: string;
  updated_by: UserSummary | null;
  last_seen_at: string | null;
  verified: boolean;
  verified_at: string | null;
  verified_by: UserSummary | null;
  hidden: boolean;
}

export interface PropertyDefinition {
  id: string;
  name: string;
  description: string;
  tags: string[];
  property_type: string | null;
  is_seen_on_filtered_events: boolean | null;
  verified: boolean;
  hidden: boolean;
}

export interface SchemaProperty {
  id: string;
  name: string;
  property_type: string;
  is_required: boolean;
  description: string;
}

export interface PropertyGroup {
  id: string;
  name: string;
  description: string;
  properties: SchemaProperty[];
  events: Array<{ id: string; name: string }>;
}

export interface EventSchema {
  id: string;
  event_definition: string;
  property_group: PropertyGroup;
}

export interface Volume {
  days: string[];
  counts: number[];
  total: number;
}

export interface GeneratedCode {
  content: string;
  event_count: number;
  schema_hash: string;
  generator_version: string;
}
