/**
 * One condition set (a "group" of `filters.groups`): every property must hold (AND), then the
 * rollout check. Also the order condition sets are evaluated in.
 */
import type { EvaluationEnv } from './env.ts';
import { inRollout } from './hash.ts';
import { MISSING } from './logic.ts';
import type { Subject } from './subjects.ts';
import type { FlagGroup } from './types.ts';

export type ConditionOutcome = 'match' | 'no_match' | 'out_of_rollout_bound' | 'missing_dependency';

export function evaluateCondition(
  flagKey: string,
  group: FlagGroup,
  subject: Subject & { identifier: string },
  env: EvaluationEnv,
): ConditionOutcome {
  let missing = false;
  for (const property of group.properties ?? []) {
    const result = env.matchMember(property, subject.properties);
    if (result === false) return 'no_match';
    if (result === MISSING) missing = true;
  }
  if (missing) return 'missing_dependency';
  return inRollout(flagKey, subject.identifier, group.rollout_percentage) ? 'match' : 'out_of_rollout_bound';
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
