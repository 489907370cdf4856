/**
 * `stop_surveys_reached_target`: a launched survey whose responses reached its
 * `responses_limit` ends now, and the limit is cleared. Responses are counted as the
 * `responses_count` endpoint counts them (de-duplicated submissions inside the survey's window),
 * archived ones included: they were collected.
 */
import { surveyResponseCounts } from '../responses/counts.ts';
import { syncActiveFlags } from './flags.ts';
import { limitCandidates, updateSurveyLifecycle, type LifecyclePatch } from './store.ts';
import type { Candidate, SurveyJob } from './task.ts';

export const responsesLimitJob: SurveyJob<number> = {
  jobType: 'stop_surveys_reached_target',

  async candidates(db) {
    const due: Candidate<number>[] = [];
    for (const [projectId, surveys] of await limitCandidates(db)) {
      const counts = await surveyResponseCounts(db, projectId, { surveyIds: surveys.map((s) => s.id), excludeArchived: false });
      for (const survey of surveys) {
        const count = counts.get(survey.id) ?? 0;
        if (survey.responses_limit !== null && count >= survey.responses_limit) due.push({ survey, context: count });
      }
    }
    return due;
  },

  async apply(tx, survey, count) {
    const limit = survey.responses_limit;
    // A draft is not stopped (it never ran); PostHog's task does not look at start_date.
    if (limit === null || survey.end_date !== null || survey.start_date === null || count < limit) return null;
    const patch: LifecyclePatch = { end_date: tx.now, responses_limit: null };
    await updateSurveyLifecycle(tx.client, survey.project_id, survey.id, patch);
    await syncActiveFlags(tx, { ...survey, ...patch });
    return {
      patch,
      extraChanges: [],
      payload: { reason: 'responses_limit_reached', responses_limit: limit },
      summary: `survey stopped: ${count} responses reached its limit of ${limit}`,
    };
  },
};
