/**
 * Cohort conditions (`{type: "cohort", key: "id", value: <cohort id>, operator: "in" | "not_in"}`).
 * A dynamic cohort is its property groups, evaluated against the same properties
 * as the condition: `AND`/`OR` groups nested to any depth (`property` reads as `AND`), `negation`
 * on a property inverts it, and a property may itself be a cohort (recursively) or a flag
 * dependency. An empty group `{}` and an `AND` without values hold; an `OR` without values does not
 * (posthog-node). A static cohort asks the caller (`staticCohortMembership`). A cohort that is not
 * in the context, or a cohort that contains itself, matches nothing: the condition fails for `in`
 * and for `not_in` alike.
 */
import type { FlagProperty } from './types.ts';
import { all, any, not, type Tri } from './logic.ts';
import type { PropertyGroup } from './types.ts';
import type { EvaluationEnv } from './env.ts';

export function cohortIdOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim());
  return null;
}

export function matchCohortProperty(
  property: FlagProperty,
  properties: Record<string, unknown>,
  env: EvaluationEnv,
  visiting: Set<number> = new Set(),
): Tri {
  const id = cohortIdOf(property.value);
  const cohort = id === null ? undefined : env.ctx.cohorts.get(id);
  if (id === null || !cohort || visiting.has(id)) return false;
  let member: Tri;
  if (cohort.isStatic) {
    member = env.ctx.staticCohortMembership?.(id) === true;
  } else {
    visiting.add(id);
    member = matchPropertyGroup(cohort.filters, properties, env, visiting);
    visiting.delete(id);
  }
  return property.operator === 'not_in' ? not(member) : member;
}

function isPropertyGroup(value: unknown): value is PropertyGroup {
  return typeof value === 'object' && value !== null && Array.isArray((value as PropertyGroup).values);
}

export function matchPropertyGroup(
  group: PropertyGroup | null | undefined,
  properties: Record<string, unknown>,
  env: EvaluationEnv,
  visiting: Set<number>,
): Tri {
  if (!group || typeof group !== 'object' || Object.keys(group).length === 0) return true;
  const type = group.type === 'property' ? 'AND' : group.type;
  if (type !== 'AND' && type !== 'OR') return false;
  const values = Array.isArray(group.values) ? group.values : [];
  const results = values.map((value) => (): Tri => {
    if (isPropertyGroup(value)) return matchPropertyGroup(value, properties, env, visiting);
    const property = value as FlagProperty;
    const result = env.matchMember(property, properties, visiting);
    return property.negation === true ? not(result) : result;
  });
  return type === 'AND' ? all(results) : any(results);
}
