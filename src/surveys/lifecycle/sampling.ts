/**
 * The daily task `update_survey_adaptive_sampling`: the sampling flag's rollout
 * follows today's entry of the schedule; on the schedule's last day the sampling start date moves
 * to the next day, so the schedule starts over.
 */
import type { FlagFilters } from '../../targeting/types.ts';
import { findFlag } from '../../flags/store.ts';
import type { Change } from '../../accounts/activity/changes.ts';
import { updateOwnedFlag } from '../flags/owned.ts';
import type { SurveyRecord } from '../record.ts';
import { dailyLimitsSchedule, type DailyLimit } from '../schedule.ts';
import { DAY_MS, isoDay, utcDay } from '../../kernel/time.ts';
import { samplingCandidates, updateSurveyLifecycle, type LifecyclePatch } from './store.ts';
import type { SurveyJob } from './task.ts';

/** The stored schedule: a list of entries, or (as PostHog stores it) that list JSON-encoded. */
export function parseDailyLimits(raw: unknown): DailyLimit[] {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(value)) return [];
  return value.filter(
    (entry): entry is DailyLimit =>
      typeof entry === 'object' && entry !== null && typeof entry.date === 'string' && !Number.isNaN(Date.parse(entry.date)) && typeof entry.rollout_percentage === 'number',
  );
}

export interface SamplingStep {
  /** Today's rollout percentage. */
  rollout: number;
  day: string;
  /** On the last day: the schedule from tomorrow on. */
  restart: { startDate: Date; dailyLimits: DailyLimit[] | null } | null;
}

/** Today's entry of a running survey's schedule, or null when today has none. */
export function samplingStep(survey: SurveyRecord, now: Date): SamplingStep | null {
  if (survey.start_date === null || survey.end_date !== null) return null;
  const schedule = parseDailyLimits(survey.response_sampling_daily_limits);
  const today = utcDay(now);
  const index = schedule.findIndex((entry) => utcDay(new Date(entry.date)) === today);
  if (index < 0) return null;
  const entry = schedule[index];
  let restart: SamplingStep['restart'] = null;
  if (index === schedule.length - 1) {
    const startDate = new Date(new Date(entry.date).getTime() + DAY_MS);
    restart = { startDate, dailyLimits: dailyLimitsSchedule({ ...survey, response_sampling_start_date: startDate }) };
  }
  return { rollout: entry.rollout_percentage, day: isoDay(now), restart };
}

/** The rollout of the flag's condition sets when they all agree, else null. */
export function uniformRollout(filters: FlagFilters | null): number | null {
  const rollouts = new Set((filters?.groups ?? []).map((group) => group.rollout_percentage ?? 100));
  return rollouts.size === 1 ? [...rollouts][0] : null;
}

export const samplingJob: SurveyJob<null> = {
  jobType: 'update_survey_adaptive_sampling',

  async candidates(db, now) {
    return (await samplingCandidates(db))
      .filter((survey) => {
        const step = samplingStep(survey, now);
        return step !== null && (step.restart !== null || uniformRollout(survey.sampling_flag_filters) !== step.rollout);
      })
      .map((survey) => ({ survey, context: null }));
  },

  async apply(tx, survey) {
    const step = samplingStep(survey, tx.now);
    const flagId = survey.internal_response_sampling_flag_id;
    if (step === null || flagId === null) return null;
    const flag = await findFlag(tx.client, survey.project_id, flagId, true);
    if (flag === null || flag.deleted) return null;
    const previous = uniformRollout(flag.filters);
    const extraChanges: Change[] = [];
    if (previous !== step.rollout) {
      await updateOwnedFlag(tx.unit, tx, survey.project_id, flagId, { rolloutPercentage: step.rollout });
      extraChanges.push({ type: 'Survey', action: 'changed', field: 'response_sampling_rollout_percentage', before: previous, after: step.rollout });
    }
    const patch: LifecyclePatch = {};
    if (step.restart) {
      patch.response_sampling_start_date = step.restart.startDate;
      patch.response_sampling_daily_limits = step.restart.dailyLimits;
      await updateSurveyLifecycle(tx.client, survey.project_id, survey.id, patch);
    }
    if (extraChanges.length === 0 && !step.restart) return null;
    return {
      patch,
      extraChanges,
      payload: { date: step.day, rollout_percentage: step.rollout, restarted: step.restart !== null },
      summary: `response sampling at ${step.rollout}%${step.restart ? '; the schedule starts over tomorrow' : ''}`,
    };
  },
};
