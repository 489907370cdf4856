import { filtersError } from '../../targeting/errors.ts';
import type { FlagLookup } from './lookup.ts';
import { missingCohort } from '../errors.ts';

type Cohort = Awaited<ReturnType<FlagLookup['cohortsByIds']>>[number];

/** An integer id sent as a JSON number or a string of digits; null for anything else. */
export function parseIntegerId(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) {
    const id = Number(value);
    return Number.isSafeInteger(id) ? id : null;
  }
  return null;
}

/**
 * A cohort condition: the cohort and every cohort it depends on, recursively,
 * exist in the project, and none of them filters on events (behavioural cohorts).
 */
export async function checkCohortCondition(value: unknown, lookup: FlagLookup): Promise<void> {
  const rootId = parseIntegerId(value);
  if (rootId === null) throw missingCohort(value);
  const ordered: Cohort[] = [];
  const seen = new Set<number>([rootId]);
  let pending = [rootId];
  while (pending.length > 0) {
    const found = new Map((await lookup.cohortsByIds(pending)).map((cohort) => [cohort.id, cohort]));
    const next: number[] = [];
    for (const id of pending) {
      const cohort = found.get(id);
      if (!cohort) throw missingCohort(id === rootId ? value : id);
      ordered.push(cohort);
      for (const dependency of cohort.dependsOn) {
        if (!seen.has(dependency)) {
          seen.add(dependency);
          next.push(dependency);
        }
      }
    }
    pending = next;
  }
  const behavioral = ordered.find((cohort) => cohort.hasBehavioralFilters);
  if (behavioral) {
    throw filtersError(
      `Cohort '${behavioral.name}' with filters on events cannot be used in feature flags.`,
      'behavioral_cohort_found',
    );
  }
}
