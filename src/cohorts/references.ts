/**
 * Rules that look at the rest of the project when a cohort's definition changes: referenced
 * cohorts exist and close no loop, a cohort used by an active flag gains no filters on events, and
 * a cohort still in use is not deleted.
 */
import type { ReadHandle } from '../db/pool.ts';
import { validationError } from '../kernel/errors.ts';
import { reachableCohorts } from './definitions.ts';
import { hasBehavioralFilters, referencedCohortIds } from './filters.ts';
import { activeFlagsUsingCohorts, type CohortNode } from './store.ts';
import { filtersError } from '../targeting/errors.ts';
import { loopError } from './errors.ts';

/** `nodes` with the cohort being written in its new form (`self.id` null on create). */
function graphWith(nodes: CohortNode[], self: CohortNode | null): Map<number, CohortNode> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  if (self) byId.set(self.id, self);
  return byId;
}

/**
 * Every cohort the filters reference is a live cohort of the project, and following the
 * references from the cohort being written never leads back to it.
 */
export function checkReferences(nodes: CohortNode[], selfId: number | null, filters: Record<string, unknown>, isStatic: boolean): void {
  const live = new Map(nodes.map((node) => [node.id, node]));
  for (const id of referencedCohortIds(filters)) {
    if (id === selfId) throw loopError();
    if (!live.has(id)) throw filtersError(`Cohort with id ${id} does not exist`, 'cohort_does_not_exist');
  }
  // A static cohort's filters are never evaluated again, so they cannot take part in a loop.
  if (selfId === null || isStatic) return;
  const byId = graphWith(nodes, { id: selfId, name: '', is_static: false, filters });
  const starts = referencedCohortIds(filters);
  if (reachableCohorts(starts, byId).some((node) => node.id === selfId)) {
    throw loopError();
  }
}

/** The live dynamic cohorts whose evaluation reaches `cohortId` (it included). */
function cohortsReaching(cohortId: number, byId: Map<number, CohortNode>): number[] {
  const users: number[] = [];
  for (const node of byId.values()) {
    if (node.id === cohortId || reachableCohorts([node.id], byId).some((reached) => reached.id === cohortId)) users.push(node.id);
  }
  return users;
}

/**
 * A cohort that an active flag uses (directly or through other cohorts) may not come to filter on
 * events, itself or through the cohorts it references: flags cannot evaluate such cohorts.
 */
export async function checkFlagUse(db: ReadHandle, projectId: number, nodes: CohortNode[], self: CohortNode): Promise<void> {
  if (self.is_static) return;
  const byId = graphWith(nodes, self);
  const reached = reachableCohorts([self.id], byId);
  const behavioral = reached.filter((node) => !node.is_static && hasBehavioralFilters(node.filters));
  if (behavioral.length === 0) return;
  const flags = await activeFlagsUsingCohorts(db, projectId, cohortsReaching(self.id, byId));
  if (flags.length === 0) return;
  if (behavioral.some((node) => node.id === self.id)) {
    throw filtersError('Behavioral filters cannot be added to cohorts used in feature flags.', 'behavioral_cohort_found');
  }
  throw filtersError(
    `A cohort dependency (${behavioral[0].name}) has filters based on events. These cohorts can't be used in feature flags.`,
    'behavioral_cohort_found',
  );
}

function firstNames(names: string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown}, and ${names.length - 5} more` : shown;
}

/** A cohort still used by an active flag or as criteria of another live cohort is not deleted. */
export async function checkDeletable(db: ReadHandle, projectId: number, nodes: CohortNode[], cohortId: number): Promise<void> {
  const flags = await activeFlagsUsingCohorts(db, projectId, [cohortId]);
  if (flags.length > 0) {
    throw validationError(
      `This cohort is used in ${flags.length} active feature flag(s): ${flags.map((flag) => flag.name || flag.key).join(', ')}. ` +
        'Please remove the cohort from these feature flags before deleting it.',
    );
  }
  const users = nodes.filter((node) => node.id !== cohortId && referencedCohortIds(node.filters).includes(cohortId));
  if (users.length > 0) {
    throw validationError(
      `This cohort is used as criteria in ${users.length} other cohort(s): ${firstNames(users.map((node) => node.name || 'Unnamed'))}. ` +
        'Please remove this cohort from those cohort definitions before deleting it.',
    );
  }
}
