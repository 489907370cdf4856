/**
 * The rules by which events change a person: `$set`, `$set_once`, `$unset`, and which distinct
 * ids may take part in a merge. Pure functions; resolve.ts applies them in event order.
 */
import { jsonEqual } from '../../accounts/activity/changes.ts';

export type Properties = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, also for the key `__proto__` (which plain assignment would not store). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `$unset` as a list of keys (posthog-js, posthog-node) or, leniently, an object whose keys are unset. */
function unsetKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((key): key is string => typeof key === 'string');
  if (isPlainObject(value)) return Object.keys(value);
  return [];
}

/**
 * Applies one event's `$set_once`, then `$set`, then `$unset` to `person` (in place): `$set_once`
 * only fills keys the person does not have (a key holding null counts as had), `$set` overwrites,
 * `$unset` removes. Anything that is not an object (a list for `$unset`) is ignored. Answers
 * whether anything changed.
 */
export function applyPropertyUpdates(person: Properties, eventProperties: Record<string, unknown>): boolean {
  let changed = false;
  const setOnce = eventProperties.$set_once;
  if (isPlainObject(setOnce)) {
    for (const [key, value] of Object.entries(setOnce)) {
      if (Object.hasOwn(person, key) || value === undefined) continue;
      setOwn(person, key, value);
      changed = true;
    }
  }
  const set = eventProperties.$set;
  if (isPlainObject(set)) {
    for (const [key, value] of Object.entries(set)) {
      if (value === undefined || (Object.hasOwn(person, key) && jsonEqual(person[key], value))) continue;
      setOwn(person, key, value);
      changed = true;
    }
  }
  for (const key of unsetKeys(eventProperties.$unset)) {
    if (!Object.hasOwn(person, key)) continue;
    delete person[key];
    changed = true;
  }
  return changed;
}

/**
 * Placeholder ids that clients send by mistake ("anonymous", "null", "[object Object]"…): linking
 * such an id would merge every user who sent it into one person, so PostHog refuses to merge on
 * them and so do we. Compared case-insensitively and trimmed.
 */
const PLACEHOLDER_IDS = new Set([
  '',
  '0',
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'null',
  'none',
  'nan',
  'true',
  'false',
  '[object object]',
]);

export function mayMergeOn(distinctId: string): boolean {
  return !PLACEHOLDER_IDS.has(distinctId.trim().toLowerCase());
}
