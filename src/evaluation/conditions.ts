/**
 * One condition set (a "group" of `filters.groups`): every property must hold (AND), then the
 * rollout check. Also the order condition sets are evaluated in.
 */
import type { EvaluationEnv } from './env.ts';
import { inRollout, type HashedFlag } from './hash.ts';
import { MISSING } from './logic.ts';
import { compileProperty, type PropertyMatcher } from './operators.ts';
import type { FlagGroup, FlagProperty } from './types.ts';

export type ConditionOutcome = 'match' | 'no_match' | 'out_of_rollout_bound' | 'missing_dependency';

/**
 * A condition set read once into one shape for every flag (stored groups differ in their keys, which
 * would make every read of them a slow one).
 */
export interface Condition {
  /** The stored position (`condition_index`). */
  readonly index: number;
  readonly properties: readonly FlagProperty[];
  /** Each property compiled (`compileProperty`), or null for cohort and flag conditions (and non-objects), which the environment decides. */
  readonly matchers: readonly (PropertyMatcher | null)[];
  readonly rollout: number | null | undefined;
  /** The set's own group type index (mixed targeting); absent or null: the flag's subject. */
  readonly aggregation: number | null | undefined;
  /** The set's variant override when it names one of the flag's variants, else null. */
  readonly override: string | null;
}

export function readCondition(group: FlagGroup, index: number, variantKeys: ReadonlySet<string>): Condition {
  const properties = group.properties ?? [];
  return {
    index,
    properties,
    matchers: properties.map((property) =>
      property && typeof property === 'object' && property.type !== 'cohort' && property.type !== 'flag' ? compileProperty(property) : null,
    ),
    rollout: group.rollout_percentage,
    aggregation: group.aggregation_group_type_index,
    override: typeof group.variant === 'string' && variantKeys.has(group.variant) ? group.variant : null,
  };
}

export function evaluateCondition(
  flag: HashedFlag,
  condition: Condition,
  properties: Record<string, unknown>,
  identifier: string,
  env: EvaluationEnv,
): ConditionOutcome {
  let missing = false;
  const { matchers } = condition;
  for (let i = 0; i < matchers.length; i++) {
    const matcher = matchers[i];
    const result = matcher !== null ? matcher(properties, env.now) : env.matchMember(condition.properties[i], properties);
    if (result === false) return 'no_match';
    if (result === MISSING) missing = true;
  }
  if (missing) return 'missing_dependency';
  return inRollout(flag, identifier, condition.rollout) ? 'match' : 'out_of_rollout_bound';
}

/**
 * Condition sets with a variant override first, the rest after, each in stored order (a stable
 * sort, as PostHog's server does). Flags are stored in this order already (`overridesFirst`), so
 * for them this is the stored order; `index` is always the stored position.
 */
export function orderedConditions(groups: readonly FlagGroup[]): { group: FlagGroup; index: number }[] {
  const indexed = groups.map((group, index) => ({ group, index }));
  return [...indexed.filter(({ group }) => group?.variant), ...indexed.filter(({ group }) => !group?.variant)];
}
