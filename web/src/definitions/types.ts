/** The event-definition API's answers, as the console reads them: derived from the generated API types (see api/types.ts). */
import type { AnswerOf, Schemas } from '../api/types.ts';

export type EventDefinition = Schemas['EventDefinition'];
export type PropertyDefinition = Schemas['PropertyDefinition'];
export type PropertyGroup = Schemas['SchemaPropertyGroup'];
export type SchemaProperty = PropertyGroup['properties'][number];
export type EventSchema = Schemas['EventSchema'];
export type Volume = AnswerOf<'event_definitions_volume_retrieve'>;
export type GeneratedCode = AnswerOf<'event_definitions_typescript_retrieve'>;
