import type { ReadHandle } from '../db/pool.ts';
import type { CohortDefinition, PropertyGroup } from '../evaluation/index.ts';
import { hasBehavioralFilters, referencedCohortIds } from './filters.ts';
import { liveCohorts, liveCohortsByIds, type CohortNode } from './store.ts';

/**
 * The project's live cohorts as the evaluation engine takes them: a dynamic cohort is its
 * property groups, a static one is decided by its stored members (deleted cohorts are absent, so
 * conditions on them match nothing).
 */
export async function loadCohortDefinitions(db: ReadHandle, projectId: number): Promise<Map<number, CohortDefinition>> {
  return definitionsOf(await liveCohorts(db, projectId));
}

export function definitionsOf(nodes: CohortNode[]): Map<number, CohortDefinition> {
  const definitions = new Map<number, CohortDefinition>();
  for (const node of nodes) {
    const group = (node.filters as { properties?: PropertyGroup }).properties;
    definitions.set(node.id, { id: node.id, isStatic: node.is_static, filters: group ?? { type: 'AND', values: [] } });
  }
  return definitions;
}

/** What a cohort condition needs to know (flag validation): static cohorts stop the traversal. */
export interface CohortReference {
  id: number;
  name: string;
  hasBehavioralFilters: boolean;
  dependsOn: number[];
}

export function referenceOf(node: CohortNode): CohortReference {
  return {
    id: node.id,
    name: node.name,
    hasBehavioralFilters: !node.is_static && hasBehavioralFilters(node.filters),
    dependsOn: node.is_static ? [] : referencedCohortIds(node.filters),
  };
}

/** Live cohorts of the project with these ids, for flag filter validation. */
export async function cohortReferencesByIds(db: ReadHandle, projectId: number, ids: number[]): Promise<CohortReference[]> {
  return (await liveCohortsByIds(db, projectId, ids)).map(referenceOf);
}

/**
 * The cohorts `rootIds` reach through cohort conditions (themselves included), walking dynamic
 * cohorts only: a static cohort's filters are never evaluated. Unknown ids are left out.
 */
export function reachableCohorts(rootIds: number[], byId: Map<number, CohortNode>): CohortNode[] {
  const seen = new Set<number>();
  const out: CohortNode[] = [];
  const pending = [...rootIds];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = byId.get(id);
    if (!node) continue;
    out.push(node);
    if (!node.is_static) pending.push(...referencedCohortIds(node.filters));
  }
  return out;
}
