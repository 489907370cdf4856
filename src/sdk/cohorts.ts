/**
 * Cohort references as the SDK endpoints walk them: which cohorts a property group names, and the
 * closure of the cohorts the flags use (to ship them to SDKs, and to know which static cohorts'
 * memberships a person load must read). Cohort rows become engine definitions in src/cohorts.
 */
import type { CohortDefinition, PropertyGroup } from '../evaluation/index.ts';
import type { FlagProperty } from '../targeting/types.ts';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPropertyGroup(value: unknown): value is PropertyGroup {
  return isObject(value) && Array.isArray(value.values);
}

/** Every property of a group, however deeply nested. */
export function* propertiesOf(group: PropertyGroup | null | undefined): Generator<FlagProperty> {
  if (!group || !Array.isArray(group.values)) return;
  for (const value of group.values) {
    if (isPropertyGroup(value)) yield* propertiesOf(value);
    else if (isObject(value)) yield value as FlagProperty;
  }
}

/** The cohort id a `type: "cohort"` property names, or null. */
export function cohortIdOf(property: FlagProperty): number | null {
  if (property.type !== 'cohort') return null;
  const value = property.value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^\d{1,10}$/.test(value.trim())) return Number(value.trim());
  return null;
}

/** The cohorts a property group refers to directly. */
export function referencedCohorts(group: PropertyGroup): number[] {
  const ids = new Set<number>();
  for (const property of propertiesOf(group)) {
    const id = cohortIdOf(property);
    if (id !== null) ids.add(id);
  }
  return [...ids];
}

/**
 * `roots` and every cohort they refer to, transitively through dynamic cohorts (a static cohort's
 * members are stored; it refers to nothing).
 */
export function cohortClosure(roots: Iterable<number>, cohorts: ReadonlyMap<number, CohortDefinition>): Set<number> {
  const seen = new Set<number>();
  const pending = [...roots];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const cohort = cohorts.get(id);
    if (cohort && !cohort.isStatic) pending.push(...referencedCohorts(cohort.filters));
  }
  return seen;
}
