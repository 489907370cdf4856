import type { FlagListFilter, FlagOrder } from './list-filter.ts';
import type { FlagRecord } from './record.ts';
import { flagStatus } from './status.ts';

function variantCount(flag: FlagRecord): number {
  const variants = flag.filters.multivariate?.variants;
  return Array.isArray(variants) ? variants.length : 0;
}

/** Whether a flag belongs in the list under `filter` (every condition AND-ed). */
export function matchesListFilter(flag: FlagRecord, filter: FlagListFilter, now: Date): boolean {
  if (flag.deleted !== filter.deleted || flag.owned_by_survey) return false;
  if (!filter.deleted && flag.archived !== filter.archived) return false;
  if (filter.active !== undefined && flag.active !== filter.active) return false;
  if (filter.staleOnly && flagStatus(flag, now).status === 'active') return false;
  if (filter.createdById !== undefined && flag.created_by_id !== filter.createdById) return false;
  if (filter.evaluationRuntimes && !filter.evaluationRuntimes.includes(flag.evaluation_runtime)) return false;
  if (filter.excludedKeys.length > 0 && filter.excludedKeys.includes(flag.key)) return false;
  if (filter.hasEvaluationTags !== undefined && flag.evaluation_tags.length > 0 !== filter.hasEvaluationTags) return false;
  if (filter.search) {
    const needle = filter.search.toLowerCase();
    if (!flag.key.toLowerCase().includes(needle) && !flag.name.toLowerCase().includes(needle)) return false;
  }
  if (filter.key !== undefined && flag.key.toLowerCase() !== filter.key) return false;
  if (filter.tags.length > 0 && !flag.tags.some((tag) => filter.tags.includes(tag))) return false;
  switch (filter.type) {
    case 'boolean':
      return variantCount(flag) === 0;
    case 'multivariant':
      return variantCount(flag) > 0;
    case 'experiment':
      // Deleted experiments count too (PostHog's filter).
      return flag.has_experiment;
    case 'remote_config':
      return flag.is_remote_configuration === true;
    default:
      return true;
  }
}

function sortValue(flag: FlagRecord, column: FlagOrder['column']): string | number | null {
  const value = flag[column];
  if (value instanceof Date) return value.getTime();
  return value;
}

/** Comparator for `order`: nulls last when descending, first when ascending; ties by id. */
export function compareForOrder(order: FlagOrder): (a: FlagRecord, b: FlagRecord) => number {
  const direction = order.descending ? -1 : 1;
  return (a, b) => {
    const left = sortValue(a, order.column);
    const right = sortValue(b, order.column);
    if (left !== right) {
      if (left === null) return -direction;
      if (right === null) return direction;
      return (left < right ? -1 : 1) * direction;
    }
    return (a.id - b.id) * direction;
  };
}
