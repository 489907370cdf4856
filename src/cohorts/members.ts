import type { ReadHandle } from '../db/pool.ts';
import type { PropertyGroup } from '../evaluation/index.ts';
import { validationError } from '../kernel/errors.ts';
import type { Page } from '../kernel/http/pagination.ts';
import { sharedFor } from './calculation.ts';
import { reachableCohorts } from './definitions.ts';
import { hasBehavioralFilters } from './filters.ts';
import { cohortMatcher, personSubjects } from './population.ts';
import { liveCohorts, staticMembers, type CohortRecord, type MemberRow } from './store.ts';

/**
 * One page of a cohort's persons, in person order: a static cohort's stored members, or the
 * persons a dynamic cohort matches now (evaluated batch by batch until the page is full).
 */
export async function cohortMembers(db: ReadHandle, projectId: number, cohort: CohortRecord, page: Page): Promise<{ rows: MemberRow[]; hasMore: boolean }> {
  if (cohort.is_static) {
    const rows = await staticMembers(db, cohort.id, page.limit + 1, page.offset);
    return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
  }
  const nodes = new Map((await liveCohorts(db, projectId)).map((node) => [node.id, node]));
  nodes.set(cohort.id, { id: cohort.id, name: cohort.name, is_static: false, filters: cohort.filters });
  if (reachableCohorts([cohort.id], nodes).some((node) => !node.is_static && hasBehavioralFilters(node.filters))) {
    throw validationError('This cohort filters on events: its persons cannot be listed.');
  }
  // The cohort itself is evaluated even when it is deleted (deleted cohorts match nothing in flags).
  const self = { id: cohort.id, isStatic: false, filters: (cohort.filters as { properties: PropertyGroup }).properties };
  const shared = await sharedFor(db, projectId, [self]);
  const matches = cohortMatcher(cohort.id);
  const rows: MemberRow[] = [];
  let skipped = 0;
  for await (const batch of personSubjects(db, projectId, shared)) {
    for (const { row, ctx } of batch) {
      if (!matches(ctx)) continue;
      if (skipped < page.offset) {
        skipped += 1;
        continue;
      }
      rows.push(row);
      if (rows.length > page.limit) return { rows: rows.slice(0, page.limit), hasMore: true };
    }
  }
  return { rows, hasMore: false };
}
