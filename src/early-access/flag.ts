/**
 * What a feature does to its flag: created through the flags area's create (validation, key
 * clash, activity), and the enrolment marker `filters.feature_enrollment` set or cleared through
 * the one flag writer (activity entry, change notice, caches) in the feature's unit of work.
 */
import type { UserSummary } from '../accounts/users/user-summary.ts';
import type { UnitOfWork } from '../db/unit-of-work.ts';
import { jsonEqual } from '../accounts/activity/changes.ts';
import { createFlag } from '../flags/create.ts';
import { flagValuesOf, type FlagRecord } from '../flags/record.ts';
import { findFlag, updateFlag } from '../flags/store.ts';
import type { FlagWriteDeps } from '../flags/write-deps.ts';
import { commitFlagWrite } from '../flags/writer.ts';
import type { FlagFilters } from '../targeting/types.ts';

/** PostHog's slug: lower case; only letters, digits, `_`, space and `-` kept; spaces/hyphens collapse to one `-`; `-`/`_` trimmed. */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\s-]/gu, '')
    .replace(/[\s-]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}

export async function createFeatureFlag(deps: FlagWriteDeps, unit: UnitOfWork, projectId: number, actor: UserSummary, featureName: string, enrolling: boolean): Promise<FlagRecord> {
  const filters: FlagFilters = { groups: [{ properties: [], rollout_percentage: 0, variant: null }], ...(enrolling ? { feature_enrollment: true } : {}) };
  return createFlag(deps, projectId, actor, { key: slugify(featureName), name: `Feature Flag for Early Access Feature ${featureName}`, filters, creation_context: 'early_access_features' }, unit);
}

/** The marker on (`true`), off (`null`), or everyone served (`'everyone'`: general availability rolled out to all). */
export type MarkerChange = true | null | 'everyone';

export function markedFilters(filters: FlagFilters, change: MarkerChange): FlagFilters {
  const { super_groups: _legacy, ...rest } = filters as FlagFilters & { feature_enrollment?: unknown };
  if (change === 'everyone') return { ...rest, groups: [{ properties: [], rollout_percentage: 100 }], feature_enrollment: null } as FlagFilters;
  return { ...rest, feature_enrollment: change } as FlagFilters;
}

/** Rewrites the flag's marker; writes nothing when it is already so. Answers the flag as it is after. */
export async function markFlag(deps: Pick<FlagWriteDeps, 'bus' | 'flagCache'>, unit: UnitOfWork, projectId: number, flagId: number, change: MarkerChange, actor: UserSummary): Promise<FlagRecord | null> {
  const before = await findFlag(unit.client, projectId, flagId, true);
  if (!before) return null;
  const next = flagValuesOf(before);
  next.filters = markedFilters(before.filters, change);
  if (jsonEqual(next.filters, before.filters)) return before;
  const row = await updateFlag(unit.client, flagId, actor.id, next);
  const after: FlagRecord = { ...row, created_by: before.created_by, last_modified_by: actor, analytics_dashboards: before.analytics_dashboards };
  await commitFlagWrite(deps, unit, { before, after, actorId: actor.id });
  return after;
}
