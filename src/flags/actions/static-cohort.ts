/**
 * `POST {id}/create_static_cohort_for_flag`: a static cohort of the persons for whom the flag is on
 * now, evaluated by the engine over every person of the project (their stored properties, their
 * first distinct id, static cohort memberships and experience-continuity hash keys).
 */
import type { CohortRecord } from '../../cohorts/store.ts';
import { createStaticCohortFrom, type CohortDeps } from '../../cohorts/service.ts';
import { flagMatcher } from '../../cohorts/population.ts';
import type { EvaluationFlag } from '../../evaluation/index.ts';
import { notFound, validationError } from '../../kernel/errors.ts';
import type { UserSummary } from '../../accounts/users/user-summary.ts';
import type { FlagCache } from '../cache.ts';
import type { FlagRecord } from '../record.ts';
import { dependencyIdsOf } from '../validation/index.ts';

export interface StaticCohortDeps extends CohortDeps {
  flagCache: FlagCache;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM:SS` in UTC (PostHog uses the server's local time; ours is UTC). */
export function cohortTimestamp(now: Date): string {
  return (
    `${now.getUTCFullYear()}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())} ` +
    `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}`
  );
}

/** The flag and every live flag it depends on, transitively. */
function withDependencies(flag: FlagRecord, all: FlagRecord[]): FlagRecord[] {
  const live = new Map(all.filter((f) => !f.deleted).map((f) => [f.id, f]));
  const out = new Map<number, FlagRecord>([[flag.id, flag]]);
  const pending = [flag];
  while (pending.length > 0) {
    for (const id of dependencyIdsOf(pending.pop()!.filters)) {
      const dependency = live.get(id);
      if (dependency && !out.has(id)) {
        out.set(id, dependency);
        pending.push(dependency);
      }
    }
  }
  return [...out.values()];
}

export async function createStaticCohortForFlag(
  deps: StaticCohortDeps,
  projectId: number,
  flagId: number,
  actor: UserSummary,
  now: Date = new Date(),
): Promise<CohortRecord> {
  const project = await deps.flagCache.project(projectId);
  const flag = project.get(flagId)?.record;
  if (!flag) throw notFound();
  if (flag.deleted) throw validationError('Cannot create a static cohort from a deleted feature flag.');
  if ((flag.filters?.aggregation_group_type_index ?? null) !== null) {
    throw validationError('This flag targets groups, not persons: a static cohort cannot be made from it.');
  }
  const flags: EvaluationFlag[] = withDependencies(flag, project.all().map((f) => f.record));
  const target = flags[0];
  return createStaticCohortFrom(
    deps,
    projectId,
    actor,
    { name: `Users with feature flag ${flag.key} enabled at ${cohortTimestamp(now)}` },
    (cohortId) => ({
      // A disabled flag is on for nobody: nothing to walk.
      matcher: flag.active ? flagMatcher(target, flags) : null,
      needsDistinctId: true,
      hashKeyFlags: flags.filter((f) => f.ensure_experience_continuity).map((f) => f.key),
      label: `static cohort ${cohortId} from flag ${flag.key}`,
    }),
  );
}
