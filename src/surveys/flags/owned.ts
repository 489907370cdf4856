/**
 * The flags a survey owns: the targeting flag, the internal
 * ("don't show again") targeting flag and the response-sampling flag. Every write here runs in the
 * caller's unit of work and is committed through the one flag writer (activity, notice, cache).
 */
import { randomBytes } from 'node:crypto';
import type { UnitOfWork } from '../../db/unit-of-work.ts';
import { jsonEqual } from '../../accounts/activity/changes.ts';
import { flagValuesOf, SURVEY_FLAG_PREFIX, type FlagRecord, type FlagValues } from '../../flags/record.ts';
import { ensureRoomForFlag } from '../../flags/limit.ts';
import { findFlag, insertFlag, updateFlag } from '../../flags/store.ts';
import type { FlagFilters, FlagGroup, FlagProperty } from '../../targeting/types.ts';
import type { FlagWriteDeps } from '../../flags/write-deps.ts';
import { newFlagValues } from '../../flags/write-fields.ts';
import { commitFlagWrite } from '../../flags/writer.ts';
import type { UserSummary } from '../../accounts/users/user-summary.ts';
import type { SurveyRecord } from '../record.ts';
import { isPlainObject } from '../validation/python.ts';

export type OwnedFlagDeps = Pick<FlagWriteDeps, 'bus' | 'flagCache'>;

export type OwnedFlagKind = 'targeting' | 'internal' | 'sampling';
const SUFFIX: Record<OwnedFlagKind, string> = { targeting: '', internal: '-custom', sampling: '-sampling' };

/** A fresh key `survey-targeting-<10 hex>[-custom|-sampling]`. */
export function ownedFlagKey(kind: OwnedFlagKind): string {
  return `${SURVEY_FLAG_PREFIX}${randomBytes(5).toString('hex')}${SUFFIX[kind]}`;
}

/** The name every owned flag gets at creation; not renamed with the survey. */
export function ownedFlagName(surveyName: string): string {
  return `Targeting flag for survey ${surveyName}`;
}

/** The targeting and internal flags are on while the survey runs: `start_date && !end_date && !archived`. */
export function surveyFlagsActive(survey: Pick<SurveyRecord, 'start_date' | 'end_date' | 'archived'>): boolean {
  return survey.start_date !== null && survey.end_date === null && !survey.archived;
}

/** The key a survey's person properties carry: `{id}`, or `{id}/{iteration}` for a recurring survey. */
export function surveyPropertyKey(survey: Pick<SurveyRecord, 'id' | 'iteration_count' | 'current_iteration'>): string {
  return (survey.iteration_count ?? 0) > 0 ? `${survey.id}/${survey.current_iteration || 1}` : survey.id;
}

function waitPeriodDays(conditions: unknown): number {
  if (!isPlainObject(conditions)) return 0;
  const days = conditions.seenSurveyWaitPeriodInDays;
  const n = typeof days === 'number' ? days : typeof days === 'string' && days.trim() !== '' ? Number(days) : NaN;
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** The internal targeting flag's filters: not dismissed, not responded (this iteration), and the wait period. */
export function internalTargetingFilters(
  survey: Pick<SurveyRecord, 'id' | 'iteration_count' | 'current_iteration' | 'conditions'>,
): FlagFilters {
  const key = surveyPropertyKey(survey);
  const notSet = (property: string): FlagProperty => ({ key: property, value: 'is_not_set', operator: 'is_not_set', type: 'person' });
  const base = [notSet(`$survey_dismissed/${key}`), notSet(`$survey_responded/${key}`)];
  const days = waitPeriodDays(survey.conditions);
  const group = (properties: FlagProperty[]): FlagGroup => ({ variant: '', rollout_percentage: 100, properties });
  if (days === 0) return { groups: [group(base)] };
  return {
    groups: [
      group([...base, notSet('$last_seen_survey_date')]),
      group([...base, { key: '$last_seen_survey_date', value: `${days}d`, operator: 'is_date_before', type: 'person' }]),
    ],
  };
}

/** The response-sampling flag's filters at creation: everyone; the daily job moves the rollout. */
export function samplingFilters(): FlagFilters {
  return { groups: [{ variant: '', rollout_percentage: 100, properties: [] }] };
}

/** Filters as stored for a flag the survey owns: `aggregation_group_type_index` null at the top and in each group. */
export function normalizeOwnedFilters(filters: FlagFilters): FlagFilters {
  return {
    ...filters,
    groups: (filters.groups ?? []).map((group) => ({ ...group, aggregation_group_type_index: group.aggregation_group_type_index ?? null })),
    aggregation_group_type_index: filters.aggregation_group_type_index ?? null,
  };
}


export interface NewOwnedFlag {
  kind: OwnedFlagKind;
  surveyName: string;
  filters: FlagFilters;
  active: boolean;
}

/**
 * Creates an owned flag (creation_context "surveys", owned_by_survey, no usage dashboard) in
 * `unit`, with its activity entry and change notice. Filters are stored as given
 * (validate user-sent filters first).
 */
export async function insertOwnedFlag(
  unit: UnitOfWork,
  deps: OwnedFlagDeps,
  projectId: number,
  actor: UserSummary | null,
  flag: NewOwnedFlag,
): Promise<FlagRecord> {
  const values: FlagValues = {
    ...newFlagValues(ownedFlagKey(flag.kind), new Date()),
    name: ownedFlagName(flag.surveyName),
    filters: normalizeOwnedFilters(flag.filters),
    active: flag.active,
    creation_context: 'surveys',
    should_create_usage_dashboard: false,
  };
  const { client } = unit;
  await ensureRoomForFlag(client, projectId);
  const row = await insertFlag(client, projectId, actor?.id ?? null, values, null, true);
  const record: FlagRecord = { ...row, created_by: actor, last_modified_by: actor, analytics_dashboards: [] };
  await commitFlagWrite(deps, unit, { before: null, after: record, actorId: actor?.id ?? null, stamped: true });
  return record;
}

/**
 * The response-sampling flag, created once: when the survey has daily limits and no such flag yet.
 * Sets the survey's `internal_response_sampling_flag_id` and answers the new flag,
 * or null when none was needed.
 */
export async function ensureSamplingFlag(
  unit: UnitOfWork,
  deps: OwnedFlagDeps,
  projectId: number,
  actor: UserSummary | null,
  survey: Pick<SurveyRecord, 'name' | 'start_date' | 'response_sampling_daily_limits' | 'internal_response_sampling_flag_id'>,
): Promise<FlagRecord | null> {
  if (survey.response_sampling_daily_limits === null || survey.internal_response_sampling_flag_id !== null) return null;
  const flag = await insertOwnedFlag(unit, deps, projectId, actor, {
    kind: 'sampling',
    surveyName: survey.name,
    filters: samplingFilters(),
    active: survey.start_date !== null,
  });
  survey.internal_response_sampling_flag_id = flag.id;
  return flag;
}

export interface OwnedFlagChanges {
  /** Replaces the stored filters (merge first when PostHog merges: `{...old, ...new}`). */
  filters?: FlagFilters;
  /** Sets `rollout_percentage` of every condition set (the sampling job). */
  rolloutPercentage?: number;
  active?: boolean;
  /** true soft-deletes the flag. */
  deleted?: boolean;
}

/**
 * Rewrites an owned (or attached) flag of `projectId` in `unit`: filters, rollout,
 * active state, soft delete. Locks the row; writes nothing (and answers the record unchanged) when
 * nothing changes; answers null when the flag does not exist. `actor` null = the system (jobs).
 */
export async function updateOwnedFlag(
  unit: UnitOfWork,
  deps: OwnedFlagDeps,
  projectId: number,
  flagId: number,
  changes: OwnedFlagChanges,
  actor: UserSummary | null = null,
): Promise<FlagRecord | null> {
  const { client } = unit;
  const before = await findFlag(client, projectId, flagId, true);
  if (!before) return null;
  const next = flagValuesOf(before);
  if (changes.filters !== undefined) next.filters = normalizeOwnedFilters(changes.filters);
  if (changes.rolloutPercentage !== undefined) {
    const rollout = changes.rolloutPercentage;
    next.filters = { ...next.filters, groups: (next.filters.groups ?? []).map((group) => ({ ...group, rollout_percentage: rollout })) };
  }
  if (changes.active !== undefined) next.active = changes.active;
  if (changes.deleted !== undefined) next.deleted = changes.deleted;
  const unchanged =
    jsonEqual(next.filters, before.filters) && next.active === before.active && next.deleted === before.deleted;
  if (unchanged) return before;
  const row = await updateFlag(client, flagId, actor?.id ?? null, next);
  const after: FlagRecord = { ...row, created_by: before.created_by, last_modified_by: actor, analytics_dashboards: before.analytics_dashboards };
  await commitFlagWrite(deps, unit, { before, after, actorId: actor?.id ?? null });
  return after;
}
