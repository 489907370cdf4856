/** Evaluation reasons: their descriptions, and which non-match reason a flag reports. */
import type { FlagReason, ReasonCode } from './types.ts';

/**
 * When no condition set matches, the flag reports the highest-ranked reason seen, with that
 * condition set's index; on equal rank the later condition set replaces the earlier one.
 */
const RANK: Record<ReasonCode, number> = {
  super_condition_value: 4,
  holdout_condition_value: 3.5,
  condition_match: 3,
  no_group_type: 2,
  out_of_rollout_bound: 1,
  no_condition_match: 0,
  flag_disabled: -1,
  missing_dependency: -2,
};

export function describeReason(code: ReasonCode, conditionIndex: number | null): string {
  switch (code) {
    case 'condition_match':
      return conditionIndex === null ? 'Matched condition set' : `Matched condition set ${conditionIndex + 1}`;
    case 'no_condition_match':
      return 'No matching condition set';
    case 'out_of_rollout_bound':
      return 'Out of rollout bound';
    case 'no_group_type':
      return 'No group type';
    case 'super_condition_value':
      return 'Super condition value';
    case 'holdout_condition_value':
      return 'Holdout condition value';
    case 'flag_disabled':
      return 'Feature flag is disabled';
    case 'missing_dependency':
      return 'Flag cannot be evaluated due to missing dependency';
  }
}

// Reasons are few (code × condition index) and read-only: one frozen object each, shared by every
// result, so evaluating a flag allocates no reason (nor its description).
const reasons: Record<ReasonCode, FlagReason[]> = {
  condition_match: [],
  no_condition_match: [],
  out_of_rollout_bound: [],
  no_group_type: [],
  super_condition_value: [],
  holdout_condition_value: [],
  flag_disabled: [],
  missing_dependency: [],
};
const MAX_CACHED_INDEX = 1000;

export function reason(code: ReasonCode, conditionIndex: number | null): FlagReason {
  const slot = conditionIndex === null ? 0 : conditionIndex + 1;
  const byIndex = reasons[code];
  if (!byIndex || !Number.isInteger(slot) || slot < 0 || slot > MAX_CACHED_INDEX) {
    return Object.freeze({ code, condition_index: conditionIndex, description: describeReason(code, conditionIndex) });
  }
  return (byIndex[slot] ??= Object.freeze({ code, condition_index: conditionIndex, description: describeReason(code, conditionIndex) }));
}

/** Whether a non-match reason seen later replaces the one kept (on equal rank the later one wins). */
export function outranks(code: ReasonCode, kept: ReasonCode): boolean {
  return RANK[code] >= RANK[kept];
}
