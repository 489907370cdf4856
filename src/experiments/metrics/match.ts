/** Whether an event counts for a metric source, and the value it adds: one reading for ingestion and rebuilds. */
import type { EventPropertyFilter, EventSource } from './types.ts';

export interface EventLike {
  event: string;
  properties: Record<string, unknown>;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

function numeric(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function equalsAny(actual: unknown, expected: unknown): boolean {
  const wanted = Array.isArray(expected) ? expected : [expected];
  const have = text(actual).toLowerCase();
  return wanted.some((value) => text(value).toLowerCase() === have);
}

function matchesFilter(properties: Record<string, unknown>, filter: EventPropertyFilter): boolean {
  const present = Object.hasOwn(properties, filter.key) && properties[filter.key] !== null && properties[filter.key] !== undefined;
  const actual = present ? properties[filter.key] : undefined;
  switch (filter.operator) {
    case 'is_set':
      return present;
    case 'is_not_set':
      return !present;
    case 'exact':
      return present && equalsAny(actual, filter.value);
    case 'is_not':
      return !present || !equalsAny(actual, filter.value);
    case 'icontains':
      return present && text(actual).toLowerCase().includes(text(filter.value).toLowerCase());
    case 'not_icontains':
      return !present || !text(actual).toLowerCase().includes(text(filter.value).toLowerCase());
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const a = numeric(actual);
      const b = numeric(filter.value);
      if (a === null || b === null) return false;
      return filter.operator === 'gt' ? a > b : filter.operator === 'gte' ? a >= b : filter.operator === 'lt' ? a < b : a <= b;
    }
    default:
      return false;
  }
}

export function matchesSource(event: EventLike, source: EventSource): boolean {
  if (source.event !== null && event.event !== source.event) return false;
  return source.properties.every((filter) => matchesFilter(event.properties, filter));
}

/** What one matching event adds: 1 for `total`, else its `math_property` as a number (0 when missing). */
export function eventValue(event: EventLike, source: EventSource): number {
  if (source.math === 'total' || source.math_property === null) return 1;
  return numeric(event.properties[source.math_property]) ?? 0;
}

/**
 * PostHog's default test-account filter for a project (the only one Bellwether applies, having no
 * per-project list): events sent from a page on localhost or 127.0.0.1.
 */
const LOCAL_HOST = /^(localhost|127\.0\.0\.1)($|:)/;
export function isTestAccountEvent(event: EventLike): boolean {
  const host = event.properties.$host;
  return typeof host === 'string' && LOCAL_HOST.test(host);
}
