/**
 * The flag evaluation engine (CONTRACT §4, reference §6): one flag, or every flag of a project for
 * one person, with no I/O. The order for one flag:
 *
 * 1. Inactive → false, `flag_disabled`.
 * 2. Group flag whose group type is unknown or was not sent → false, `no_group_type`.
 * 3. Early-access enrollment (`feature_enrollment`, or the first of `super_groups`): when the
 *    person has the enrollment property, the super condition decides (`super_condition_value`,
 *    index 0). A super group without properties decides only when it matches.
 * 4. Holdout (the first of `holdout_groups`, or `holdout: {id, exclusion_percentage}`): a person
 *    inside it gets the holdout variant (`holdout_condition_value`, index null).
 * 5. Condition sets in stored order (overrides first, see `orderedConditions`); the first that
 *    matches wins (`condition_match`) with its override variant if that is a real variant, else the
 *    hashed one (boolean flags: none). With `early_exit`, a condition set that fails only its
 *    rollout ends the walk. Otherwise the highest-ranked non-match reason (`NonMatchReason`), or
 *    `missing_dependency` when a condition set needed a flag that is missing or in a cycle.
 */
import { evaluateCondition, orderedConditions } from './conditions.ts';
import { dependencyChains, FlagIndex } from './dependencies.ts';
import { createEnv, type EvaluationEnv } from './env.ts';
import { holdoutHash, pickVariant } from './hash.ts';
import { NonMatchReason, reason } from './reasons.ts';
import { groupSubject, personSubject, type Subject } from './subjects.ts';
import { hasProperty } from './operators.ts';
import type {
  DependencyResolver,
  EvaluationContext,
  EvaluationFlag,
  FlagFilters,
  FlagGroup,
  FlagReason,
  FlagResult,
} from './types.ts';

const noDependencies: DependencyResolver = () => null;

/**
 * Evaluates one flag. Flag dependencies go through `resolveDependency` (without one, every
 * dependency counts as missing); `evaluateFlags` supplies one that evaluates each dependency once.
 */
export function evaluateFlag(
  flag: EvaluationFlag,
  ctx: EvaluationContext,
  resolveDependency: DependencyResolver = noDependencies,
): FlagResult {
  return evaluateWith(flag, createEnv(ctx, resolveDependency));
}

/**
 * Evaluates every live flag (deleted ones are skipped) for one person, or only `onlyKeys`.
 * Dependencies are evaluated from all the flags given, once each, whatever `onlyKeys` holds.
 */
export function evaluateFlags(
  flags: readonly EvaluationFlag[],
  ctx: EvaluationContext,
  options: { onlyKeys?: readonly string[] } = {},
): Map<string, FlagResult> {
  const index = new FlagIndex(flags);
  let chains: Map<number, string[]> | null = null;
  const done = new Map<number, FlagResult>();
  const running = new Set<number>();

  const evaluate = (flag: EvaluationFlag): FlagResult => {
    const cached = done.get(flag.id);
    if (cached) return cached;
    running.add(flag.id);
    try {
      const result = evaluateWith(flag, env);
      done.set(flag.id, result);
      return result;
    } finally {
      running.delete(flag.id);
    }
  };

  const resolveDependency: DependencyResolver = (property) => {
    const target = index.resolve(property.key);
    if (!target || running.has(target.id)) return null;
    chains ??= dependencyChains(index.byId.values());
    if ((chains.get(target.id) ?? []).length === 0) return null;
    const result = evaluate(target);
    return result.reason.code === 'missing_dependency' ? null : { enabled: result.enabled, variant: result.variant };
  };

  const env = createEnv(ctx, resolveDependency);
  const only = options.onlyKeys ? new Set(options.onlyKeys) : null;
  const results = new Map<string, FlagResult>();
  for (const flag of index.byId.values()) {
    if (only && !only.has(flag.key)) continue;
    results.set(flag.key, evaluate(flag));
  }
  return results;
}

function result(flag: EvaluationFlag, enabled: boolean, variant: string | null, why: FlagReason): FlagResult {
  return { key: flag.key, enabled, variant, payload: enabled ? payloadFor(flag.filters, variant) : null, reason: why };
}

/** `payloads[variant]`, or `payloads["true"]` for a match without a variant; null when there is none. */
export function payloadFor(filters: FlagFilters | null | undefined, variant: string | null): string | null {
  const value = filters?.payloads?.[variant ?? 'true'] as unknown;
  if (value === undefined || value === null || value === '') return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function variantKeys(filters: FlagFilters): Set<string> {
  return new Set((filters.multivariate?.variants ?? []).map((variant) => variant.key));
}

function evaluateWith(flag: EvaluationFlag, env: EvaluationEnv): FlagResult {
  if (!flag.active) return result(flag, false, null, reason('flag_disabled', null));
  const filters: FlagFilters = flag.filters ?? {};
  const ctx = env.ctx;
  const flagAggregation = filters.aggregation_group_type_index ?? null;

  const person = personSubject(flag, ctx);
  let subject: Subject;
  if (flagAggregation !== null) {
    const group = groupSubject(flagAggregation, ctx);
    if (!group) return result(flag, false, null, reason('no_group_type', null));
    subject = group;
  } else {
    subject = person;
  }

  const enrollment = superConditionResult(flag, filters, person, env);
  if (enrollment) return enrollment;

  const heldOut = holdoutResult(flag, filters, subject);
  if (heldOut) return heldOut;

  const variants = variantKeys(filters);
  const nonMatch = new NonMatchReason();
  let missingDependency = false;
  for (const { group, index } of orderedConditions(filters.groups ?? [])) {
    if (!group || typeof group !== 'object') continue;
    const target = conditionSubject(group, flagAggregation, subject, ctx);
    if (!target) {
      nonMatch.note('no_group_type', index);
      continue;
    }
    if (target.identifier === null) {
      nonMatch.note('out_of_rollout_bound', index); // a device-id flag without a device id
      continue;
    }
    const outcome = evaluateCondition(flag.key, group, { ...target, identifier: target.identifier }, env);
    if (outcome === 'match') {
      const override = typeof group.variant === 'string' && variants.has(group.variant) ? group.variant : null;
      const variant = override ?? pickVariant(flag.key, target.identifier, filters.multivariate?.variants ?? []);
      return result(flag, true, variant, reason('condition_match', index));
    }
    if (outcome === 'missing_dependency') {
      missingDependency = true;
      continue;
    }
    nonMatch.note(outcome === 'out_of_rollout_bound' ? 'out_of_rollout_bound' : 'no_condition_match', index);
    if (outcome === 'out_of_rollout_bound' && filters.early_exit === true) break;
  }
  if (missingDependency) return result(flag, false, null, reason('missing_dependency', null));
  return result(flag, false, null, nonMatch.get());
}

/**
 * A condition set's own `aggregation_group_type_index` (mixed targeting) switches it to that
 * group when it differs from the flag's; an absent key keeps the flag's subject (posthog-node).
 */
function conditionSubject(
  group: FlagGroup,
  flagAggregation: number | null,
  flagSubject: Subject,
  ctx: EvaluationContext,
): Subject | null {
  const own = group.aggregation_group_type_index;
  if (own === undefined || own === null || own === flagAggregation) return flagSubject;
  return groupSubject(own, ctx);
}

function superConditionResult(
  flag: EvaluationFlag,
  filters: FlagFilters,
  person: Subject,
  env: EvaluationEnv,
): FlagResult | null {
  if (filters.feature_enrollment === true) {
    const key = `$feature_enrollment/${flag.key}`;
    if (!hasProperty(person.properties, key)) return null;
    const value = person.properties[key];
    return superDecided(flag, value === true || value === 'true');
  }
  const superGroup = Array.isArray(filters.super_groups) ? filters.super_groups[0] : undefined;
  if (!superGroup || typeof superGroup !== 'object') return null;
  const properties = superGroup.properties ?? [];
  const hashed = { ...person, identifier: person.identifier ?? person.baseIdentifier };
  if (properties.length === 0) {
    return evaluateCondition(flag.key, superGroup, hashed, env) === 'match' ? superDecided(flag, true) : null;
  }
  if (!properties.some((property) => hasProperty(person.properties, String(property.key)))) return null;
  return superDecided(flag, evaluateCondition(flag.key, superGroup, hashed, env) === 'match');
}

// Module-level rather than closures: these run for every flag of every request.
function superDecided(flag: EvaluationFlag, enabled: boolean): FlagResult {
  return result(flag, enabled, null, reason('super_condition_value', 0));
}

function heldOutResult(flag: EvaluationFlag, variant: string | null): FlagResult {
  return result(flag, true, variant, reason('holdout_condition_value', null));
}

function holdoutResult(flag: EvaluationFlag, filters: FlagFilters, subject: Subject): FlagResult | null {
  const holdoutGroup = Array.isArray(filters.holdout_groups) ? filters.holdout_groups[0] : undefined;
  if (holdoutGroup && typeof holdoutGroup === 'object') {
    const percentage = holdoutGroup.rollout_percentage;
    if (percentage !== null && percentage !== undefined && holdoutHash(subject.baseIdentifier) > percentage / 100) {
      return null;
    }
    const own = typeof holdoutGroup.variant === 'string' && holdoutGroup.variant !== '' ? holdoutGroup.variant : null;
    const identifier = subject.identifier ?? subject.baseIdentifier;
    return heldOutResult(flag, own ?? pickVariant(flag.key, identifier, filters.multivariate?.variants ?? []));
  }
  const holdout = filters.holdout as { id?: unknown; exclusion_percentage?: unknown } | null | undefined;
  if (!holdout || typeof holdout !== 'object' || holdout.id == null || holdout.exclusion_percentage == null) return null;
  const raw = Number(holdout.exclusion_percentage);
  if (!Number.isFinite(raw)) return null;
  const percentage = Math.min(Math.max(raw, 0), 100);
  if (percentage !== 100 && holdoutHash(subject.baseIdentifier) > percentage / 100) return null;
  return heldOutResult(flag, `holdout-${String(holdout.id)}`);
}
