/**
 * A flag read once into what its evaluation walks — condition sets in evaluation order, variants,
 * payloads by value — so that evaluating it for many people does not redo that work each time.
 */
import { orderedConditions, readCondition, type Condition } from './conditions.ts';
import { hashPrefixOf } from './hash.ts';
import type { EvaluationFlag, FlagFilters, FlagVariant } from './types.ts';

export interface PreparedFlag {
  readonly flag: EvaluationFlag;
  readonly filters: FlagFilters;
  /** The key as the bucketing hashes take it (`hashPrefixOf`). */
  readonly hashKey: Uint8Array;
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
}

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
    payload(variant) {
      const key = variant ?? 'true';
      let payload = payloads.get(key);
      if (payload === undefined) {
        payload = payloadFor(filters, variant);
        payloads.set(key, payload);
      }
      return payload;
    },
  };
}
