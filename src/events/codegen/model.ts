import { createHash } from 'node:crypto';
import type { Pool } from '../../db/pool.ts';
import { compareCodePoints } from './identifiers.ts';
import { withReadSnapshot } from '../../db/read-snapshot.ts';
import { includedEvents, observedProperties, schemaProperties } from './store.ts';

/**
 * One property occurrence as stored: a row of a schema property group attached to the event, or
 * a property ingestion observed on it. `type` is a PostHog property type name (`String`,
 * `Numeric`, `Boolean`, `DateTime`, `Array`, `Object`, anything else) or null when unknown.
 */
export interface PropertyOccurrence {
  name: string;
  type: string | null;
  /** Required in the generated types: `is_required` and not `is_optional_in_types`. */
  required: boolean;
}

/** An event as the generators see it. `properties` empty: a loose type (any properties). */
export interface CodegenEvent {
  name: string;
  /** Where the properties came from. */
  source: 'schema' | 'observed' | 'none';
  /** Every occurrence, in group order (hashed as stored, before de-duplication). */
  occurrences: PropertyOccurrence[];
  /** De-duplicated by name, in first-occurrence order. */
  properties: CodegenProperty[];
}

/** A property after de-duplication across groups. */
export interface CodegenProperty {
  name: string;
  /** The distinct types of its occurrences, in occurrence order (more than one: a union). */
  types: (string | null)[];
  /** Optional as soon as one occurrence is optional. */
  required: boolean;
}

/** Merges occurrences of one name (1.1.0 behaviour): union of types, required only if every occurrence is. */
export function dedupe(occurrences: PropertyOccurrence[]): CodegenProperty[] {
  const byName = new Map<string, CodegenProperty>();
  for (const occurrence of occurrences) {
    const seen = byName.get(occurrence.name);
    if (!seen) {
      byName.set(occurrence.name, { name: occurrence.name, types: [occurrence.type], required: occurrence.required });
      continue;
    }
    if (!seen.types.includes(occurrence.type)) seen.types.push(occurrence.type);
    seen.required &&= occurrence.required;
  }
  return [...byName.values()];
}

/**
 * The project's included events with their properties. Properties come from the schema property
 * groups attached to the event; an event whose groups give none falls back to the properties
 * ingestion observed on it (all optional); with neither it is loose. Read in one snapshot, so the
 * content and its hash describe the same state.
 */
export async function loadCodegenEvents(pool: Pool, projectId: number): Promise<CodegenEvent[]> {
  return withReadSnapshot(pool, async (client) => {
    const events = await includedEvents(client, projectId);
    const schemaRows = await schemaProperties(client, projectId, events.map((e) => e.id));
    const fromSchema = new Map<string, PropertyOccurrence[]>();
    for (const row of schemaRows) {
      const list = fromSchema.get(row.event_definition_id) ?? [];
      list.push({ name: row.name, type: row.property_type, required: row.is_required && !row.is_optional_in_types });
      fromSchema.set(row.event_definition_id, list);
    }
    const withoutSchema = events.filter((e) => !fromSchema.has(e.id)).map((e) => e.name);
    const observedRows = await observedProperties(client, projectId, withoutSchema);
    const observed = new Map<string, PropertyOccurrence[]>();
    for (const row of observedRows) {
      const list = observed.get(row.event) ?? [];
      list.push({ name: row.name, type: row.property_type, required: false });
      observed.set(row.event, list);
    }
    return events.map((event): CodegenEvent => {
      const schema = fromSchema.get(event.id);
      const seen = observed.get(event.name);
      const source = schema ? 'schema' : seen ? 'observed' : 'none';
      const occurrences = schema ?? seen ?? [];
      return { name: event.name, source, occurrences, properties: dedupe(occurrences) };
    });
  });
}

function compareTypes(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return compareCodePoints(a, b);
}

/**
 * The hash posthog-cli compares to skip unchanged pulls: the first 32 hex characters of the
 * SHA-256 of `{"schemas":[[event, [[property, type, required], ...]], ...],"version":"<v>"}` as
 * compact JSON, events by name and each event's triples sorted (name, type, false before true),
 * every occurrence counted. It does not depend on the time of generation or on the language
 * beyond its generator version.
 */
export function schemaHash(events: CodegenEvent[], version: string): string {
  const schemas = [...events]
    .sort((a, b) => compareCodePoints(a.name, b.name))
    .map((event) => [
      event.name,
      event.occurrences
        .map((p) => [p.name, p.type, p.required] as const)
        .sort((a, b) => compareCodePoints(a[0], b[0]) || compareTypes(a[1], b[1]) || Number(a[2]) - Number(b[2])),
    ]);
  return createHash('sha256')
    .update(JSON.stringify({ schemas, version }))
    .digest('hex')
    .slice(0, 32);
}

/** What every generator gets. */
export interface GeneratorInput {
  events: CodegenEvent[];
  /** ISO 8601 UTC, for the header. */
  generatedAt: string;
}

export interface Generator {
  version: string;
  generate(input: GeneratorInput): string;
}

/** The properties sorted by name (code points), as Go and Python list them. */
export function byName<T extends { name: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => compareCodePoints(a.name, b.name));
}
