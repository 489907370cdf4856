import { isoUtc } from '../../kernel/time.ts';
import type { PersonRow } from './read-model.ts';
import type { Person } from './schemas.ts';

// PostHog's default display-name properties, in its order.
const NAME_PROPERTIES = ['email', 'Email', 'name', 'Name', 'username', 'Username', 'UserName'];

export function personName(properties: Record<string, unknown>, distinctIds: string[], uuid: string): string {
  for (const key of NAME_PROPERTIES) {
    const value = properties[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return distinctIds[0] ?? uuid;
}

export function presentPerson(row: PersonRow): Person {
  return {
    id: row.uuid,
    uuid: row.uuid,
    name: personName(row.properties, row.distinct_ids, row.uuid),
    distinct_ids: row.distinct_ids,
    properties: row.properties,
    is_identified: row.is_identified,
    created_at: isoUtc(row.created_at),
    last_seen_at: isoUtc(row.last_seen_at),
  };
}
