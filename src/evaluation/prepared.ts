/**
 * A flag read once into what its evaluation walks — condition sets in evaluation order, variants,
 * payloads by value — so that evaluating it for many people does not redo that work each time.
 */
import { orderedConditions, readCondition, type Condition } from './conditions.ts';
import { hashPrefixOf } from './hash.ts';
import type { Sha1Prefix } from './sha1.ts';
import type { EvaluationFlag, FlagFilters, FlagReason, FlagResult, FlagVariant } from './types.ts';

export interface PreparedFlag {
  readonly flag: EvaluationFlag;
  readonly filters: FlagFilters;
  /** The key as the bucketing hashes take it (`hashPrefixOf`). */
  readonly hashKey: Sha1Prefix;
  /** The flag's group type index, or null for a person flag. */
  readonly aggregation: number | null;
  /** The condition sets in evaluation order (overrides first), those that are not objects left out. */
  readonly conditions: readonly Condition[];
  /** `early_exit`: a condition set that fails only its rollout ends the walk. */
  readonly earlyExit: boolean;
  readonly variants: readonly FlagVariant[];
  /** Whether the flag has an early-access enrollment (`feature_enrollment`) or a first super group to check. */
  readonly hasSuperCondition: boolean;
  /** The first super group, read as a condition set (index 0), or null. */
  readonly superCondition: Condition | null;
  /** Whether the flag has a holdout (`holdout_groups[0]` or `holdout`) to check. */
  readonly hasHoldout: boolean;
  /** The payload of a match with this variant (null: no variant), or null. */
  payload(variant: string | null): string | null;
  /**
   * The flag's result for this outcome. A flag takes only a few outcomes, so each is made once
   * (frozen) and the same object is returned for every person after: evaluating allocates no result,
   * and renderers may key what they render on the result's identity.
   */
  result(enabled: boolean, variant: string | null, reason: FlagReason): FlagResult;
}

/** Past this many outcomes of one flag (holdout variants, many condition sets) results are made without keeping them. */
const MAX_KEPT_OUTCOMES = 32;

/** `payloads[variant]`, or `payloads["true"]` for a match without a variant; null when there is none. */
export function payloadFor(filters: FlagFilters | null | undefined, variant: string | null): string | null {
  const value = filters?.payloads?.[variant ?? 'true'] as unknown;
  if (value === undefined || value === null || value === '') return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function prepareFlag(flag: EvaluationFlag): PreparedFlag {
  const filters: FlagFilters = flag.filters ?? {};
  const variants = filters.multivariate?.variants ?? [];
  const payloads = new Map<string, string | null>();
  const variantKeys = new Set(variants.map((variant) => variant.key));
  const superGroup = Array.isArray(filters.super_groups) ? filters.super_groups[0] : undefined;
  const outcomes: FlagResult[] = [];
  const payload = (variant: string | null): string | null => {
    const key = variant ?? 'true';
    let found = payloads.get(key);
    if (found === undefined) {
      found = payloadFor(filters, variant);
      payloads.set(key, found);
    }
    return found;
  };
  return {
    flag,
    filters,
    hashKey: hashPrefixOf(flag.key),
    aggregation: filters.aggregation_group_type_index ?? null,
    conditions: orderedConditions(filters.groups ?? [])
      .filter(({ group }) => group && typeof group === 'object')
      .map(({ group, index }) => readCondition(group, index, variantKeys)),
    earlyExit: filters.early_exit === true,
    variants,
    hasSuperCondition: filters.feature_enrollment === true || (Array.isArray(filters.super_groups) && filters.super_groups.length > 0),
    superCondition: superGroup && typeof superGroup === 'object' ? readCondition(superGroup, 0, variantKeys) : null,
    hasHoldout: (Array.isArray(filters.holdout_groups) && filters.holdout_groups.length > 0) || (filters.holdout !== undefined && filters.holdout !== null),
    payload,
    result(enabled, variant, reason) {
      for (let i = 0; i < outcomes.length; i++) {
        const kept = outcomes[i];
        if (kept.reason === reason && kept.enabled === enabled && kept.variant === variant) return kept;
      }
      const made: FlagResult = Object.freeze({ key: flag.key, enabled, variant, payload: enabled ? payload(variant) : null, reason });
      if (outcomes.length < MAX_KEPT_OUTCOMES) outcomes.push(made);
      return made;
    },
  };
}
