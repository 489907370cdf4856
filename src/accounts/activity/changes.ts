import type { ActivityChange } from './schemas.ts';

/** One changed field of an activity entry. */
export type Change = ActivityChange;

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value as object).length === 0;
  return false;
}

/** Order-insensitive for object keys, order-sensitive for arrays: what JSON equality means here. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => jsonEqual(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) if (!jsonEqual(left[key], right[key])) return false;
  return true;
}

/**
 * PostHog's change list: `created` when the old value was empty and the new one is not,
 * `deleted` for the reverse, `changed` otherwise.
 */
export function diffChanges(
  type: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): Change[] {
  const changes: Change[] = [];
  for (const field of fields) {
    const old = before[field] ?? null;
    const now = after[field] ?? null;
    if (jsonEqual(old, now)) continue;
    if (isEmpty(old) && !isEmpty(now)) changes.push({ type, action: 'created', field, before: null, after: now });
    else if (!isEmpty(old) && isEmpty(now)) changes.push({ type, action: 'deleted', field, before: old, after: null });
    else changes.push({ type, action: 'changed', field, before: old, after: now });
  }
  return changes;
}

/** The plainer change list of PostHog's taxonomy objects: every difference is `changed`, old to new. */
export function changedFields(
  type: string,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): Change[] {
  return fields
    .filter((field) => !jsonEqual(before[field], after[field]))
    .map((field) => ({ type, action: 'changed' as const, field, before: before[field], after: after[field] }));
}
