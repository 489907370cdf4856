/**
 * The daily task `update_survey_iteration`: a recurring survey moves to the
 * iteration whose window holds today, and ends once the last iteration is over.
 */
import { insertOwnedFlag, internalTargetingFilters, surveyFlagsActive, updateOwnedFlag } from '../flags/owned.ts';
import type { SurveyRecord } from '../record.ts';
import { iterationFields } from '../schedule.ts';
import { utcDay } from '../../kernel/time.ts';
import { syncActiveFlags } from './flags.ts';
import { iterationCandidates, updateSurveyLifecycle, type LifecyclePatch } from './store.ts';
import type { JobTransaction, SurveyJob } from './task.ts';

export type IterationStep = { kind: 'complete' } | { kind: 'advance'; iteration: number; startDate: Date };

/**
 * For a running survey with iterations: `complete` when today is past the last start date plus the
 * frequency; else the first (1-based) iteration whose start day is 0 to `frequency` days before
 * today, when that differs from the current one. null = nothing to do.
 */
export function iterationStep(survey: SurveyRecord, now: Date): IterationStep | null {
  const frequency = survey.iteration_frequency_days ?? 0;
  if (survey.start_date === null || survey.end_date !== null || (survey.iteration_count ?? 0) <= 0 || frequency <= 0) return null;
  const dates = survey.iteration_start_dates ?? iterationFields(survey).iteration_start_dates;
  if (!dates || dates.length === 0) return null;
  const today = utcDay(now);
  if (today > utcDay(dates[dates.length - 1]) + frequency) return { kind: 'complete' };
  const index = dates.findIndex((start) => {
    const days = today - utcDay(start);
    return days >= 0 && days <= frequency;
  });
  if (index < 0 || index + 1 === survey.current_iteration) return null;
  return { kind: 'advance', iteration: index + 1, startDate: dates[index] };
}

/** The internal flag's filters for the new iteration; the flag is created when the survey has none (its id answered). */
async function rewriteInternalFlag(tx: JobTransaction, survey: SurveyRecord): Promise<number | null> {
  const filters = internalTargetingFilters(survey);
  if (survey.internal_targeting_flag_id !== null) {
    const flag = await updateOwnedFlag(tx.unit, tx, survey.project_id, survey.internal_targeting_flag_id, { filters });
    if (flag) return null;
  }
  const flag = await insertOwnedFlag(tx.unit, tx, survey.project_id, null, {
    kind: 'internal',
    surveyName: survey.name,
    filters,
    active: surveyFlagsActive(survey),
  });
  return flag.id;
}

export const iterationJob: SurveyJob<null> = {
  jobType: 'update_survey_iteration',

  async candidates(db, now) {
    return (await iterationCandidates(db)).filter((survey) => iterationStep(survey, now) !== null).map((survey) => ({ survey, context: null }));
  },

  async apply(tx, survey) {
    const step = iterationStep(survey, tx.now);
    if (step === null) return null;
    if (step.kind === 'complete') {
      const patch: LifecyclePatch = { end_date: tx.now };
      await updateSurveyLifecycle(tx.client, survey.project_id, survey.id, patch);
      await syncActiveFlags(tx, { ...survey, ...patch });
      return {
        patch,
        extraChanges: [],
        payload: { reason: 'iterations_completed', iteration_count: survey.iteration_count },
        summary: `survey ended: its ${survey.iteration_count} iterations are over`,
      };
    }
    const patch: LifecyclePatch = { current_iteration: step.iteration, current_iteration_start_date: step.startDate };
    const createdId = await rewriteInternalFlag(tx, { ...survey, ...patch });
    if (createdId !== null) patch.internal_targeting_flag_id = createdId;
    await updateSurveyLifecycle(tx.client, survey.project_id, survey.id, patch);
    return {
      patch,
      extraChanges: [],
      payload: { current_iteration: step.iteration, previous_iteration: survey.current_iteration, iteration_start_date: step.startDate.toISOString() },
      summary: `survey moved to iteration ${step.iteration}`,
    };
  },
};
