/**
 * The cohort half of copying a flag into another project (not wired into copyFlags yet): which
 * source cohorts the target needs, which it already has by name, the order to create the rest in
 * (referenced cohorts first), and the flag's or a cohort's filters with cohort ids remapped.
 * Pure: the caller loads the cohorts and writes in one unit of work.
 */
import { cohortIdOf, referencedCohortIds } from '../../cohorts/filters.ts';
import type { CohortNode } from '../../cohorts/store.ts';

/** How deep a chain of cohorts referencing cohorts may go before the copy is refused. */
export const MAX_COHORT_DEPTH = 20;
const MAX_FILTER_DEPTH = 64;

export interface CohortCopyPlan {
  /** Source cohort id → the target's cohort of the same name. */
  reused: Map<number, number>;
  /** Source cohorts to create in the target, each after every cohort it references. */
  toCreate: CohortNode[];
}

export class CohortCopyRefusal extends Error {}

/**
 * `rootIds`: the cohorts the flag's filters name. `source`: the source project's live cohorts.
 * `targetByName`: the target's live cohorts by name. A static cohort's filters are not followed
 * (it is copied empty). An id the source does not hold (deleted, another project's) refuses.
 */
export function planCohortCopy(rootIds: number[], source: Map<number, CohortNode>, targetByName: Map<string, number>): CohortCopyPlan {
  const reused = new Map<number, number>();
  const toCreate: CohortNode[] = [];
  const done = new Set<number>();
  const visiting = new Set<number>();
  const visit = (id: number, depth: number): void => {
    if (done.has(id) || visiting.has(id)) return; // a cycle is not followed twice
    if (depth > MAX_COHORT_DEPTH) throw new CohortCopyRefusal(`Cohorts reference each other more than ${MAX_COHORT_DEPTH} levels deep.`);
    const node = source.get(id);
    if (!node) throw new CohortCopyRefusal(`Cohort ${id} does not exist in the source project.`);
    const existing = targetByName.get(node.name);
    if (existing !== undefined) {
      reused.set(id, existing);
      done.add(id);
      return;
    }
    visiting.add(id);
    if (!node.is_static) for (const child of referencedCohortIds(node.filters)) visit(child, depth + 1);
    visiting.delete(id);
    done.add(id);
    toCreate.push(node);
  };
  for (const id of rootIds) visit(id, 1);
  return { reused, toCreate };
}

/**
 * `filters` (a flag's or a cohort's, any nesting) with every cohort property's value replaced by
 * its id in `ids`; ids `ids` does not name are left as they are.
 */
export function remapCohortIds<T>(filters: T, ids: ReadonlyMap<number, number>): T {
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > MAX_FILTER_DEPTH || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = walk(item, depth + 1);
    if (copy.type === 'cohort') {
      const id = cohortIdOf(copy.value);
      const mapped = id === null ? undefined : ids.get(id);
      if (mapped !== undefined) copy.value = mapped;
    }
    return copy;
  };
  return walk(filters, 0) as T;
}
