/**
 * The write half of copying a flag's cohorts: follows the plan in the caller's unit of work,
 * creating each cohort through the cohort service (counts, activity, change notice as for any
 * create), and answers source cohort id → target cohort id.
 */
import type { UnitOfWork } from '../../db/unit-of-work.ts';
import { cohortIdOf, referencedCohortIds } from '../../cohorts/filters.ts';
import { createCohort, type CohortDeps } from '../../cohorts/service.ts';
import { findCohort, liveCohorts, lockProjectCohorts } from '../../cohorts/store.ts';
import type { UserSummary } from '../../accounts/users/user-summary.ts';
import type { FlagFilters } from '../../targeting/types.ts';
import { CohortCopyRefusal, planCohortCopy, remapCohortIds } from './copy-cohorts.ts';

export interface CohortCarry {
  deps: CohortDeps;
  unit: UnitOfWork;
  actor: UserSummary;
  fromProjectId: number;
  toProjectId: number;
}

/** The cohort ids a flag's release conditions (and early-access conditions) name. */
export function flagCohortIds(filters: FlagFilters): number[] {
  const ids = new Set<number>();
  for (const group of [...(filters.groups ?? []), ...(filters.super_groups ?? [])]) {
    for (const property of group.properties ?? []) {
      const id = property.type === 'cohort' ? cohortIdOf(property.value) : null;
      if (id !== null) ids.add(id);
    }
  }
  return [...ids];
}

export async function carryCohorts(carry: CohortCarry, filters: FlagFilters): Promise<Map<number, number>> {
  const roots = flagCohortIds(filters);
  if (roots.length === 0) return new Map();
  const { unit } = carry;
  // Held to the end of the unit: a concurrent copy cannot create a cohort of the same name meanwhile.
  await lockProjectCohorts(unit.client, carry.toProjectId);
  const source = new Map((await liveCohorts(unit.client, carry.fromProjectId)).map((node) => [node.id, node]));
  const targetByName = new Map<string, number>();
  for (const node of await liveCohorts(unit.client, carry.toProjectId)) if (!targetByName.has(node.name)) targetByName.set(node.name, node.id);

  const plan = planCohortCopy(roots, source, targetByName);
  const ids = new Map(plan.reused);
  for (const node of plan.toCreate) {
    // Referenced cohorts come first; one still unmapped here closes a loop.
    if (!node.is_static && referencedCohortIds(node.filters).some((id) => !ids.has(id))) {
      throw new CohortCopyRefusal(`Cohort '${node.name}' references cohorts in a loop; it cannot be copied.`);
    }
    const description = (await findCohort(unit.client, carry.fromProjectId, node.id))?.description ?? '';
    const created = await createCohort(
      carry.deps,
      carry.toProjectId,
      carry.actor,
      { name: node.name, description, is_static: node.is_static, filters: node.is_static ? undefined : remapCohortIds(node.filters, ids) },
      unit,
    );
    ids.set(node.id, created.id);
  }
  return ids;
}
