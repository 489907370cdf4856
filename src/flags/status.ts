import { DAY_MS } from '../kernel/time.ts';
import type { FlagFilters } from '../targeting/types.ts';

export const FLAG_STATUSES = ['active', 'stale', 'inactive', 'deleted', 'unknown'] as const;
export type FlagStatus = (typeof FLAG_STATUSES)[number];

export interface FlagStatusResult {
  status: FlagStatus;
  reason: string;
}

export interface StatusInput {
  deleted: boolean;
  active: boolean;
  filters: FlagFilters | null;
  created_at: Date;
  last_called_at: Date | null;
}

const THRESHOLD_DAYS = 30;

function isFullRollout(group: { properties?: unknown[]; rollout_percentage?: number | null }): boolean {
  return group.rollout_percentage === 100 && (group.properties ?? []).length === 0;
}

/** Why the flag always gives the same answer, or null when it does not. Disabled flags never do. */
function alwaysSameReason(flag: StatusInput): string | null {
  if (!flag.active) return null;
  const filters = flag.filters;
  if (!filters || Object.keys(filters).length === 0) return 'This boolean flag will always evaluate to "true"';
  const groups = filters.groups ?? [];
  const variants = filters.multivariate?.variants ?? [];
  if (variants.length === 0) {
    return groups.some(isFullRollout) ? 'This boolean flag will always evaluate to "true"' : null;
  }
  const fullGroups = groups.filter(isFullRollout);
  if (fullGroups.length === 0) return null;
  const override = fullGroups.find((g) => g.variant && variants.some((v) => v.key === g.variant));
  if (override) return `This flag will always use the variant "${override.variant}"`;
  const fullVariant = variants.find((v) => v.rollout_percentage === 100);
  return fullVariant ? `This flag will always use the variant "${fullVariant.key}"` : null;
}

/**
 * PostHog's flag status (V-B): deleted, then inactive (not called for 30 days, or never called and
 * older than 30 days), then stale (fully rolled out and older than 30 days), else active.
 */
export function flagStatus(flag: StatusInput, now: Date = new Date()): FlagStatusResult {
  if (flag.deleted) return { status: 'deleted', reason: 'Flag has been deleted' };
  const old = now.getTime() - flag.created_at.getTime() > THRESHOLD_DAYS * DAY_MS;
  const staleReason = old ? alwaysSameReason(flag) : null;
  let inactiveReason: string | null = null;
  if (flag.last_called_at) {
    const idleDays = Math.floor((now.getTime() - flag.last_called_at.getTime()) / DAY_MS);
    if (idleDays > THRESHOLD_DAYS) inactiveReason = `Flag has not been called in ${idleDays} days`;
  } else if (old) {
    inactiveReason = 'Flag has never been called and is over 30 days old';
  }
  if (inactiveReason) {
    const also = staleReason ? `. Additionally, ${staleReason.charAt(0).toLowerCase()}${staleReason.slice(1)}` : '';
    return { status: 'inactive', reason: `${inactiveReason}${also}` };
  }
  if (staleReason) return { status: 'stale', reason: staleReason };
  return { status: 'active', reason: 'Flag is active and being evaluated' };
}
