/**
 * Which approval action a flag edit is, and whether a policy's conditions hold for it. Enable and
 * disable are `active` turned on or off; update is any rollout percentage changed (condition
 * sets, variants, holdout), and wins over a toggle sent with it.
 */
import type { FlagFilters } from '../targeting/types.ts';

export const FLAG_ACTIONS = ['feature_flag.enable', 'feature_flag.disable', 'feature_flag.update'] as const;
export type FlagAction = (typeof FLAG_ACTIONS)[number];

interface FlagState {
  active: boolean;
  filters: FlagFilters | null;
}

type Rollouts = Record<string, number | null>;

function rollouts(filters: FlagFilters | null): Rollouts {
  const out: Rollouts = {};
  (filters?.groups ?? []).forEach((group, i) => {
    out[`groups[${i}].rollout_percentage`] = group.rollout_percentage ?? null;
  });
  (filters?.multivariate?.variants ?? []).forEach((variant, i) => {
    out[`multivariate.variants[${i}].rollout_percentage`] = variant.rollout_percentage ?? null;
  });
  const holdout = (filters as { holdout?: { exclusion_percentage?: number } } | null)?.holdout;
  if (holdout && typeof holdout === 'object') out['holdout.exclusion_percentage'] = holdout.exclusion_percentage ?? null;
  return out;
}

export interface RolloutChange {
  path: string;
  before: number | null;
  after: number | null;
}

export function rolloutChanges(before: FlagFilters | null, after: FlagFilters | null): RolloutChange[] {
  const old = rollouts(before);
  const now = rollouts(after);
  return [...new Set([...Object.keys(old), ...Object.keys(now)])]
    .filter((path) => old[path] !== now[path])
    .map((path) => ({ path, before: old[path] ?? null, after: now[path] ?? null }));
}

export function detectAction(before: FlagState, after: FlagState): FlagAction | null {
  if (rolloutChanges(before.filters, after.filters).length > 0) return 'feature_flag.update';
  if (!before.active && after.active) return 'feature_flag.enable';
  if (before.active && !after.active) return 'feature_flag.disable';
  return null;
}

const OPERATORS: Record<string, (a: number, b: number) => boolean> = {
  '>': (a, b) => a > b,
  '<': (a, b) => a < b,
  '>=': (a, b) => a >= b,
  '<=': (a, b) => a <= b,
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
};

/** Whether a policy's conditions ask for approval of these changes; no or an unknown condition always does. */
export function conditionsHold(conditions: Record<string, unknown>, changes: RolloutChange[]): boolean {
  const compare = OPERATORS[String(conditions.operator)];
  const value = Number(conditions.value);
  switch (conditions.type) {
    case 'any_change':
      return changes.length > 0;
    case 'before_after':
      return compare !== undefined && changes.some((c) => c.after !== null && compare(c.after, value));
    case 'change_amount':
      return compare !== undefined && changes.some((c) => compare((c.after ?? 0) - (c.before ?? 0), value));
    default:
      return true;
  }
}
