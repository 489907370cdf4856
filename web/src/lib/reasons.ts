/** An evaluation reason (the engine's code and condition set) in words. */
const REASONS: Record<string, string> = {
  condition_match: 'It matched condition set',
  no_condition_match: 'It matched no condition set',
  out_of_rollout_bound: 'It matched the filters of condition set',
  disabled: 'The flag is disabled',
  flag_disabled: 'The flag is disabled',
  no_group_type: 'The flag is for groups, and no group of that type was given',
  holdout_condition_value: 'It is in the holdout group',
  super_condition_value: 'The early access enrollment decided it',
  missing_dependency: 'A flag it depends on is missing',
};

export function reasonText(reason: string, conditionIndex: number | null): string {
  const text = REASONS[reason] ?? reason;
  if (conditionIndex === null || conditionIndex === undefined) return `${text}.`;
  if (reason === 'out_of_rollout_bound') return `${text} ${conditionIndex + 1}, but is outside its rollout percentage.`;
  if (reason === 'condition_match') return `${text} ${conditionIndex + 1}.`;
  return `${text}.`;
}
