import { surveyFlagsActive, updateOwnedFlag } from '../flags/owned.ts';
import type { SurveyRecord } from '../record.ts';
import type { JobTransaction } from './task.ts';

/**
 * Sets the targeting and internal targeting flags to the API's rule (`start_date && !end_date &&
 * !archived`) for the survey as the job left it. PostHog's periodic tasks save the survey directly
 * and leave the flags on after ending a survey; here an automatic stop switches them off exactly as
 * a PATCH with `end_date` does. The sampling flag is not toggled (as in the API).
 */
export async function syncActiveFlags(tx: JobTransaction, survey: SurveyRecord): Promise<void> {
  const active = surveyFlagsActive(survey);
  for (const flagId of [survey.targeting_flag_id, survey.internal_targeting_flag_id]) {
    if (flagId !== null) await updateOwnedFlag(tx.unit, tx, survey.project_id, flagId, { active });
  }
}
