/**
 * `POST {id}/launch/` and `POST {id}/stop/`: what PostHog's console does with a PATCH of
 * `start_date` (launch) or `end_date` (stop), as actions that refuse a survey in the wrong state.
 * Both go through the one update use case (flags switched, activity entry, change notice, feed).
 * Launch sets only `start_date` (an end date set beforehand is kept, as PostHog's console does);
 * a stopped survey is resumed with a PATCH of `end_date: null`.
 */
import type { UserSummary } from '../accounts/users/user-summary.ts';
import { validationError } from '../kernel/errors.ts';
import type { WrittenSurvey } from './create.ts';
import type { SurveyRecord } from './record.ts';
import { updateSurveyById } from './update.ts';
import type { SurveyWriteDeps } from './write.ts';

export interface LifecycleRequest {
  projectId: number;
  rawId: string;
  actor: UserSummary;
}

const hasPassed = (date: Date | null, now: Date): date is Date => date !== null && date.getTime() <= now.getTime();

/** A draft, or a survey scheduled to start later, starts now. */
export function launchSurvey(deps: SurveyWriteDeps, request: LifecycleRequest): Promise<WrittenSurvey> {
  const now = new Date();
  return updateSurveyById(deps, {
    ...request,
    body: { start_date: now.toISOString() },
    precondition(before: SurveyRecord) {
      if (before.archived) throw validationError('Archived surveys cannot be launched.', 'archived', 'invalid');
      if (hasPassed(before.start_date, now)) throw validationError('Survey has already been launched.', 'start_date', 'invalid');
    },
  });
}

/** A launched survey that has not ended ends now (an end date scheduled later is brought forward). */
export function stopSurvey(deps: SurveyWriteDeps, request: LifecycleRequest): Promise<WrittenSurvey> {
  const now = new Date();
  return updateSurveyById(deps, {
    ...request,
    body: { end_date: now.toISOString() },
    precondition(before: SurveyRecord) {
      if (!hasPassed(before.start_date, now)) throw validationError('Survey has not been launched yet.', 'start_date', 'invalid');
      if (hasPassed(before.end_date, now)) throw validationError('Survey has already been stopped.', 'end_date', 'invalid');
    },
  });
}
