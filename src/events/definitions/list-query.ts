import { validationError } from '../../kernel/errors.ts';
import { isQueryTrue } from '../../kernel/http/drf-boolean.ts';
import { jsonNameList, nameList, searchTerms, tagFilter } from '../taxonomy/params.ts';
import { EVENT_TYPES, type DefinitionListQuery } from './schemas.ts';

export type EventType = (typeof EVENT_TYPES)[number];

const ORDER_KEYS = ['name', 'last_seen_at', 'last_seen_at::date', 'created_at', 'created_at::date'] as const;
export interface OrderKey {
  key: (typeof ORDER_KEYS)[number];
  descending: boolean;
}

/** The list's query parameters, decoded. */
export interface DefinitionListFilter {
  searchTerms: string[];
  eventType: EventType;
  excludeHidden: boolean;
  tags: string[];
  excludedNames: string[];
  names: string[];
  /** true: verified only; false: not verified; null: both. */
  verified: boolean | null;
  order: OrderKey[];
}

/** `last_seen_at::date DESC NULLS LAST, name ASC`. */
export const DEFAULT_ORDER: OrderKey[] = [
  { key: 'last_seen_at::date', descending: true },
  { key: 'name', descending: false },
];

/**
 * `ordering`: repeated and/or comma-joined keys, `-` for descending. Unknown keys are dropped
 * (the PostHog frontend sends `ordering=event`); a key given twice counts once (the first);
 * `name ASC` is appended as the tie-breaker when name is not among them. Nothing usable → default.
 */
export function parseOrdering(raw: string[] | undefined): OrderKey[] {
  const keys: OrderKey[] = [];
  for (const part of (raw ?? []).flatMap((value) => value.split(','))) {
    const token = part.trim();
    const descending = token.startsWith('-');
    const key = (descending ? token.slice(1) : token) as OrderKey['key'];
    if (!ORDER_KEYS.includes(key) || keys.some((k) => k.key === key)) continue;
    keys.push({ key, descending });
  }
  if (keys.length === 0) return DEFAULT_ORDER;
  if (!keys.some((k) => k.key === 'name')) keys.push({ key: 'name', descending: false });
  return keys;
}

export function parseEventType(raw: string | undefined): EventType {
  if (raw === undefined || raw === '') return 'event';
  if ((EVENT_TYPES as readonly string[]).includes(raw)) return raw as EventType;
  throw validationError(`Not a valid event type. Use one of: ${EVENT_TYPES.join(', ')}.`, 'event_type', 'invalid_choice');
}

export function decodeDefinitionListQuery(query: DefinitionListQuery): DefinitionListFilter {
  return {
    searchTerms: searchTerms(query.search),
    eventType: parseEventType(query.event_type),
    excludeHidden: isQueryTrue(query.exclude_hidden),
    tags: tagFilter(query.tags),
    excludedNames: jsonNameList(query.excluded_properties, 'excluded_properties'),
    names: nameList(query.names),
    verified: query.verified?.trim().toLowerCase() === 'true' ? true : query.verified?.trim().toLowerCase() === 'false' ? false : null,
    order: parseOrdering(query.ordering),
  };
}
