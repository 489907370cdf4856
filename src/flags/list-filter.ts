import { validationError } from '../kernel/errors.ts';
import { isQueryTrue, parseQueryBoolean } from '../kernel/http/drf-boolean.ts';
import type { FlagListQuery } from './schemas.ts';

export type FlagOrder = { column: 'key' | 'name' | 'created_at' | 'updated_at' | 'version' | 'last_called_at'; descending: boolean };

/** The list's query parameters, decoded. */
export interface FlagListFilter {
  active?: boolean;
  staleOnly: boolean;
  createdById?: number;
  evaluationRuntimes?: string[];
  excludedKeys: string[];
  hasEvaluationTags?: boolean;
  search?: string;
  /** Deleted flags only (archived or not), or none of them (the default). */
  deleted: boolean;
  /** Archived flags only, or none of them (the default). */
  archived: boolean;
  /** Lower-cased: an exact, case-insensitive key match. */
  key?: string;
  tags: string[];
  type?: 'boolean' | 'multivariant' | 'experiment' | 'remote_config';
  order: FlagOrder;
}

const ORDERABLE = new Set<FlagOrder['column']>(['key', 'name', 'created_at', 'updated_at', 'version', 'last_called_at']);

function parseJsonStringList(raw: string): string[] | null {
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : null;
  } catch {
    return null;
  }
}

/** A JSON list (`["a","b"]`) or a comma list (`a,b`); names are compared lower-cased, as tags are stored. */
function parseTags(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const list = raw.trim().startsWith('[') ? (parseJsonStringList(raw) ?? []) : raw.split(',');
  return [...new Set(list.map((t) => t.trim().toLowerCase()).filter(Boolean))];
}

function parseOrder(raw: string | undefined): FlagOrder {
  const descending = raw?.startsWith('-') ?? true;
  const column = (raw?.replace(/^-/, '') ?? 'created_at') as FlagOrder['column'];
  return ORDERABLE.has(column) ? { column, descending } : { column: 'created_at', descending: true };
}

const LIST_TYPES = new Set(['boolean', 'multivariant', 'experiment', 'remote_config']);

function activeFilter(raw: string): boolean {
  const active = parseQueryBoolean(raw);
  if (active === undefined) throw validationError(`"${raw}" is not a valid choice.`, 'active', 'invalid_choice');
  return active;
}

export function decodeListQuery(query: FlagListQuery): FlagListFilter {
  return {
    active: query.active === undefined || query.active === 'STALE' ? undefined : activeFilter(query.active),
    staleOnly: query.active === 'STALE',
    createdById: query.created_by_id,
    // `both` and `all` mean the same runtime everywhere.
    evaluationRuntimes:
      query.evaluation_runtime === undefined
        ? undefined
        : query.evaluation_runtime === 'both' || query.evaluation_runtime === 'all'
          ? ['all', 'both']
          : [query.evaluation_runtime],
    // Invalid JSON is ignored, as PostHog does.
    excludedKeys: query.excluded_properties ? (parseJsonStringList(query.excluded_properties) ?? []) : [],
    hasEvaluationTags: query.has_evaluation_tags === undefined ? undefined : isQueryTrue(query.has_evaluation_tags),
    search: query.search?.trim() ? query.search.trim() : undefined,
    archived: query.archived === undefined ? false : isQueryTrue(query.archived),
    deleted: query.deleted === undefined ? false : isQueryTrue(query.deleted),
    key: query.key?.trim() ? query.key.trim().toLowerCase() : undefined,
    tags: parseTags(query.tags),
    type: query.type && LIST_TYPES.has(query.type) ? (query.type as FlagListFilter['type']) : undefined,
    order: parseOrder(query.order),
  };
}
