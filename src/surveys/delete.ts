import type { UserSummary } from '../accounts/users/user-summary.ts';
import { recordSurveyDeleted } from './activity.ts';
import { updateOwnedFlag } from './flags/owned.ts';
import { requireSurvey } from './read-store.ts';
import { deleteSurvey } from './store.ts';
import type { SurveyWriteDeps } from './write.ts';

/**
 * DELETE: the survey row goes (its archived responses with it); the targeting, internal and
 * sampling flags are soft-deleted (readable by id with `deleted: true`, gone from
 * lists; PostHog hard-deletes the first two and leaves the sampling flag orphaned); the linked
 * flag is never touched. One transaction, with the `deleted` activity entry.
 */
export async function deleteSurveyById(deps: SurveyWriteDeps, projectId: number, rawId: string, actor: UserSummary): Promise<void> {
  await deps.units.run(async (unit) => {
    const { client } = unit;
    const survey = await requireSurvey(client, projectId, rawId, true);
    for (const flagId of [survey.targeting_flag_id, survey.internal_targeting_flag_id, survey.internal_response_sampling_flag_id]) {
      if (flagId === null) continue;
      await updateOwnedFlag(unit, deps, projectId, flagId, { deleted: true }, actor);
    }
    await recordSurveyDeleted(client, survey, actor.id);
    await deleteSurvey(client, survey.id);
    await deps.bus.publish(unit, { kind: 'survey', projectId, id: survey.id });
  }, { retry: true });
}
