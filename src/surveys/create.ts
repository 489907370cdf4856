import type { UnitOfWork } from '../db/unit-of-work.ts';
import { uuidv7 } from '../events/ingestion/uuid.ts';
import type { FlagRecord } from '../flags/record.ts';
import type { Change } from '../accounts/activity/changes.ts';
import type { UserSummary } from '../accounts/users/user-summary.ts';
import { recordSurveyCreated } from './activity.ts';
import {
  ensureSamplingFlag,
  insertOwnedFlag,
  internalTargetingFilters,
  surveyFlagsActive,
  updateOwnedFlag,
} from './flags/owned.ts';
import type { SurveyRecord } from './record.ts';
import type { SurveyWriteBody } from './schemas.ts';
import { insertSurvey } from './store.ts';
import { validateSurveyWrite } from './validation/index.ts';
import { isTruthy } from './validation/python.ts';
import { applyBody, isSurveyNameViolation, newSurveyValues, onSave, requireLinkedFlag, requireTargetingFlag, surveyLookup, validateTargetingFilters, type SurveyWriteDeps } from './write.ts';
import { surveyNameTakenError } from './errors.ts';

export interface WrittenSurvey {
  survey: SurveyRecord;
  /** The flags written with it. */
  flags: FlagRecord[];
}

export interface CreateOptions {
  now?: Date;
  /** Extra changes of the `created` activity entry (a duplicate's `source_survey_id`). */
  activityChanges?: Change[];
}

/**
 * A survey created in `unit` (POST and each duplicate's copy): the body validated
 * as a create in `projectId`, the save-time fields, the targeting flag (from
 * `targeting_flag_filters`, or an existing flag by `targeting_flag_id`), the internal targeting
 * flag, the sampling flag when daily limits exist, the activity entry and the change notice.
 * Unlike PostHog, a targeting flag created here is active when the survey is launched in this same
 * write.
 */
export async function createSurveyIn(
  unit: UnitOfWork,
  deps: SurveyWriteDeps,
  projectId: number,
  actor: UserSummary,
  body: SurveyWriteBody,
  options: CreateOptions = {},
): Promise<WrittenSurvey> {
  const { client } = unit;
  const now = options.now ?? new Date();
  const validated = await validateSurveyWrite(body, { isCreate: true, existing: null, lookup: surveyLookup(client, projectId), now });
  await requireLinkedFlag(client, projectId, validated.linked_flag_id ?? null);
  const id = uuidv7(now.getTime());
  const values = onSave(applyBody(newSurveyValues(), validated));
  const active = surveyFlagsActive(values);
  const flags: FlagRecord[] = [];

  if (isTruthy(validated.targeting_flag_filters)) {
    const filters = await validateTargetingFilters(client, projectId, validated.targeting_flag_filters, null);
    const flag = await insertOwnedFlag(unit, deps, projectId, actor, { kind: 'targeting', surveyName: values.name, filters, active });
    flags.push(flag);
    values.targeting_flag_id = flag.id;
  } else if (validated.targeting_flag_id) {
    await requireTargetingFlag(client, projectId, validated.targeting_flag_id);
    const flag = await updateOwnedFlag(unit, deps, projectId, validated.targeting_flag_id, { active }, actor);
    if (flag) flags.push(flag);
    values.targeting_flag_id = validated.targeting_flag_id;
  }

  const internal = await insertOwnedFlag(unit, deps, projectId, actor, {
    kind: 'internal',
    surveyName: values.name,
    filters: internalTargetingFilters({ id, ...values }),
    active,
  });
  flags.push(internal);
  values.internal_targeting_flag_id = internal.id;

  const sampling = await ensureSamplingFlag(unit, deps, projectId, actor, values);
  if (sampling) flags.push(sampling);

  const survey = await insertSurvey(client, id, projectId, actor.id, values);
  await recordSurveyCreated(client, survey, actor.id, options.activityChanges);
  await deps.bus.publish(unit, { kind: 'survey', projectId, id });
  return { survey, flags };
}

/** POST: one transaction; a name taken meanwhile (the unique index) reads as PostHog's uniqueness error. */
export async function createSurvey(deps: SurveyWriteDeps, projectId: number, actor: UserSummary, body: SurveyWriteBody): Promise<WrittenSurvey> {
  try {
    return await deps.units.run((unit) => createSurveyIn(unit, deps, projectId, actor, body), { retry: true });
  } catch (error) {
    if (isSurveyNameViolation(error)) throw surveyNameTakenError();
    throw error;
  }
}
