/**
 * The flag evaluation engine: one flag, or every flag of a project for
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
 *    rollout ends the walk. Otherwise the highest-ranked non-match reason (`outranks`), or
 *    `missing_dependency` when a condition set needed a flag that is missing or in a cycle.
 *
 * A flag is evaluated in its prepared form (prepared.ts); `FlagSet` (flag-set.ts) keeps a project's
 * prepared flags for every person evaluated after.
 */
import { evaluateCondition } from './conditions.ts';
import { createEnv } from './create-env.ts';
import type { EvaluationEnv } from './env.ts';
import { holdoutHash, pickVariant } from './hash.ts';
import { prepareFlag, type PreparedFlag } from './prepared.ts';
import { outranks, reason } from './reasons.ts';
import type { Subject } from './subjects.ts';
import { hasProperty } from './operators.ts';
import type { DependencyResolver, EvaluationContext, EvaluationFlag, FlagReason, FlagResult, ReasonCode } from './types.ts';
import { looseText } from './values.ts';

export { payloadFor } from './prepared.ts';

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
  return evaluatePrepared(prepareFlag(flag), createEnv(ctx, resolveDependency));
}

/** `evaluateFlag` without dependencies for many people: the flag is prepared once, not per call. */
export function flagEvaluator(flag: EvaluationFlag): (ctx: EvaluationContext) => FlagResult {
  const prepared = prepareFlag(flag);
  return (ctx) => evaluatePrepared(prepared, createEnv(ctx, noDependencies));
}

function result(prepared: PreparedFlag, enabled: boolean, variant: string | null, why: FlagReason): FlagResult {
  return prepared.result(enabled, variant, why);
}

/** One prepared flag in an environment (the person, the clock, how dependencies resolve). */
export function evaluatePrepared(prepared: PreparedFlag, env: EvaluationEnv): FlagResult {
  const flag = prepared.flag;
  if (!flag.active) return result(prepared, false, null, reason('flag_disabled', null));
  const flagAggregation = prepared.aggregation;

  const person = env.subjects.personFor(flag);
  let subject: Subject;
  if (flagAggregation !== null) {
    const group = env.subjects.group(flagAggregation);
    if (!group) return result(prepared, false, null, reason('no_group_type', null));
    subject = group;
  } else {
    subject = person;
  }

  if (prepared.hasSuperCondition) {
    const enrollment = superConditionResult(prepared, person, env);
    if (enrollment) return enrollment;
  }

  if (prepared.hasHoldout) {
    const heldOut = holdoutResult(prepared, subject);
    if (heldOut) return heldOut;
  }

  // The non-match reason kept while the condition sets are walked (see reasons.ts for the ranks).
  let kept: ReasonCode = 'no_condition_match';
  let keptIndex: number | null = null;
  let missingDependency = false;
  for (const condition of prepared.conditions) {
    const index = condition.index;
    // A condition set's own group type (mixed targeting) switches it to that group when it differs
    // from the flag's; an absent one keeps the flag's subject (posthog-node).
    const own = condition.aggregation;
    const target = own === undefined || own === null || own === flagAggregation ? subject : env.subjects.group(own);
    let code: ReasonCode;
    let stop = false;
    if (!target) {
      code = 'no_group_type';
    } else if (target.identifier === null) {
      code = 'out_of_rollout_bound'; // a device-id flag without a device id
    } else {
      const outcome = evaluateCondition(prepared.hashKey, condition, target.properties, target.identifier, env);
      if (outcome === 'match') {
        const variant = condition.override ?? pickVariant(prepared.hashKey, target.identifier, prepared.variants);
        return result(prepared, true, variant, reason('condition_match', index));
      }
      if (outcome === 'missing_dependency') {
        missingDependency = true;
        continue;
      }
      code = outcome === 'out_of_rollout_bound' ? 'out_of_rollout_bound' : 'no_condition_match';
      stop = outcome === 'out_of_rollout_bound' && prepared.earlyExit;
    }
    if (outranks(code, kept)) {
      kept = code;
      keptIndex = index;
    }
    if (stop) break;
  }
  if (missingDependency) return result(prepared, false, null, reason('missing_dependency', null));
  return result(prepared, false, null, reason(kept, keptIndex));
}

function superConditionResult(prepared: PreparedFlag, person: Subject, env: EvaluationEnv): FlagResult | null {
  const { flag, filters } = prepared;
  if (filters.feature_enrollment === true) {
    const key = `$feature_enrollment/${flag.key}`;
    if (!hasProperty(person.properties, key)) return null;
    const value = person.properties[key];
    return superDecided(prepared, value === true || value === 'true');
  }
  const superCondition = prepared.superCondition;
  if (!superCondition) return null;
  const properties = superCondition.properties;
  const identifier = person.identifier ?? person.baseIdentifier;
  if (properties.length === 0) {
    return evaluateCondition(prepared.hashKey, superCondition, person.properties, identifier, env) === 'match' ? superDecided(prepared, true) : null;
  }
  if (!properties.some((property) => hasProperty(person.properties, looseText(property.key)))) return null;
  return superDecided(prepared, evaluateCondition(prepared.hashKey, superCondition, person.properties, identifier, env) === 'match');
}

// Module-level rather than closures: these run for every flag of every request.
function superDecided(prepared: PreparedFlag, enabled: boolean): FlagResult {
  return result(prepared, enabled, null, reason('super_condition_value', 0));
}

function heldOutResult(prepared: PreparedFlag, variant: string | null): FlagResult {
  return result(prepared, true, variant, reason('holdout_condition_value', null));
}

function holdoutResult(prepared: PreparedFlag, subject: Subject): FlagResult | null {
  const { flag, filters } = prepared;
  const holdoutGroup = Array.isArray(filters.holdout_groups) ? filters.holdout_groups[0] : undefined;
  if (holdoutGroup && typeof holdoutGroup === 'object') {
    const percentage = holdoutGroup.rollout_percentage;
    if (percentage !== null && percentage !== undefined && holdoutHash(subject.baseIdentifier) > percentage / 100) {
      return null;
    }
    const own = typeof holdoutGroup.variant === 'string' && holdoutGroup.variant !== '' ? holdoutGroup.variant : null;
    const identifier = subject.identifier ?? subject.baseIdentifier;
    return heldOutResult(prepared, own ?? pickVariant(prepared.hashKey, identifier, prepared.variants));
  }
  const holdout = filters.holdout as { id?: unknown; exclusion_percentage?: unknown } | null | undefined;
  if (!holdout || typeof holdout !== 'object' || holdout.id == null || holdout.exclusion_percentage == null) return null;
  const raw = Number(holdout.exclusion_percentage);
  if (!Number.isFinite(raw)) return null;
  const percentage = Math.min(Math.max(raw, 0), 100);
  if (percentage !== 100 && holdoutHash(subject.baseIdentifier) > percentage / 100) return null;
  return heldOutResult(prepared, `holdout-${String(holdout.id)}`);
}
