import { findFlag } from '../flags/store.ts';
import type { FlagRecord } from '../flags/record.ts';
import type { FlagFilters } from '../targeting/types.ts';
import type { Change } from '../accounts/activity/changes.ts';
import type { UserSummary } from '../accounts/users/user-summary.ts';
import { recordSurveyUpdated, surveyChange } from './activity.ts';
import type { WrittenSurvey } from './create.ts';
import {
  insertOwnedFlag,
  internalTargetingFilters,
  ensureSamplingFlag,
  surveyFlagsActive,
  updateOwnedFlag,
  type OwnedFlagChanges,
} from './flags/owned.ts';
import { minimalFlag, presentedFilters } from './flags/present.ts';
import { requireSurvey } from './read-store.ts';
import { checkRecurrenceChange, patchedIterationFrequency } from './schedule.ts';
import type { SurveyRecord } from './record.ts';
import type { SurveyWriteBody } from './schemas.ts';
import { updateSurvey } from './store.ts';
import { validateSurveyWrite } from './validation/index.ts';
import { isTruthy } from './validation/python.ts';
import { applyBody, isSurveyNameViolation, onSave, requireLinkedFlag, requireTargetingFlag, surveyLookup, validateTargetingFilters, valuesOf, type SurveyWriteDeps } from './write.ts';
import { surveyNameTakenError } from './errors.ts';

export interface UpdateRequest {
  projectId: number;
  rawId: string;
  actor: UserSummary;
  body: SurveyWriteBody;
  /** Checked on the locked row before anything is written (launch/stop refuse a survey in the wrong state); throws to refuse. */
  precondition?: (before: SurveyRecord) => void;
}

/**
 * PATCH, in one transaction (so the recurrence check (not below the current iteration) or any later failure leaves nothing
 * half-done): the survey's fields and save-time fields; `remove_targeting_flag` soft-deletes the
 * targeting flag; `targeting_flag_id` attaches an existing flag of the project;
 * `targeting_flag_filters` are merged over the targeting flag's (`{...old, ...new}`) or create it;
 * the targeting and internal flags follow `start_date && !end_date && !archived`; the internal
 * flag's filters are rewritten (merged) every time; the sampling flag is created once daily limits
 * exist. `targeting_flag_id: null` changes nothing (send `remove_targeting_flag` to drop the flag).
 */
export async function updateSurveyById(deps: SurveyWriteDeps, request: UpdateRequest): Promise<WrittenSurvey> {
  const { projectId, actor } = request;
  try {
    return await deps.units.run(async (unit): Promise<WrittenSurvey> => {
      const { client } = unit;
      const before = await requireSurvey(client, projectId, request.rawId, true);
      request.precondition?.(before);
      const body = await validateSurveyWrite(request.body, {
        isCreate: false,
        existing: before,
        lookup: surveyLookup(client, projectId),
        now: new Date(),
      });
      checkRecurrenceChange(body.iteration_count, before.current_iteration);
      if (body.linked_flag_id !== undefined) await requireLinkedFlag(client, projectId, body.linked_flag_id);

      const applied = applyBody(valuesOf(before), body);
      applied.iteration_frequency_days = patchedIterationFrequency(body, before.iteration_frequency_days);
      const values = onSave(applied);
      const active = surveyFlagsActive(values);
      const flags: FlagRecord[] = [];
      const flagChanges: Change[] = [];

      // The targeting flag.
      if (body.remove_targeting_flag === true && values.targeting_flag_id !== null) {
        const current = await findFlag(client, projectId, values.targeting_flag_id);
        const removed = await updateOwnedFlag(unit, deps, projectId, values.targeting_flag_id, { deleted: true }, actor);
        if (current && removed) {
          flags.push(removed);
          flagChanges.push(surveyChange('deleted', 'targeting_flag', minimalFlag(current), null));
        }
        values.targeting_flag_id = null;
      }
      if (body.targeting_flag_id !== undefined && body.targeting_flag_id !== null && body.targeting_flag_id !== values.targeting_flag_id) {
        await requireTargetingFlag(client, projectId, body.targeting_flag_id);
        // An owned flag being replaced belongs to no one any more.
        const replaced = values.targeting_flag_id === null ? null : await findFlag(client, projectId, values.targeting_flag_id);
        if (replaced?.owned_by_survey && !replaced.deleted) {
          const gone = await updateOwnedFlag(unit, deps, projectId, replaced.id, { deleted: true }, actor);
          if (gone) flags.push(gone);
        }
        values.targeting_flag_id = body.targeting_flag_id;
      }
      // A targeting flag deleted meanwhile (through the flags API) counts as none: new filters make a new one.
      const found = values.targeting_flag_id === null ? null : await findFlag(client, projectId, values.targeting_flag_id);
      const targeting = found && !found.deleted ? found : null;
      if (isTruthy(body.targeting_flag_filters)) {
        const sent = body.targeting_flag_filters as FlagFilters;
        if (targeting) {
          const merged = await validateTargetingFilters(client, projectId, { ...targeting.filters, ...sent }, targeting.id);
          const flag = await updateOwnedFlag(unit, deps, projectId, targeting.id, { filters: merged, active }, actor);
          if (flag) flags.push(flag);
          flagChanges.push(surveyChange('changed', 'targeting_flag_filters', presentedFilters(targeting.filters), sent));
        } else {
          const filters = await validateTargetingFilters(client, projectId, sent, null);
          const flag = await insertOwnedFlag(unit, deps, projectId, actor, { kind: 'targeting', surveyName: values.name, filters, active });
          flags.push(flag);
          values.targeting_flag_id = flag.id;
          flagChanges.push(surveyChange('created', 'targeting_flag_filters', null, sent));
        }
      } else if (targeting) {
        const flag = await updateOwnedFlag(unit, deps, projectId, targeting.id, { active }, actor);
        if (flag) flags.push(flag);
      }

      // The internal targeting flag: created if missing, else its filters merged; active as the survey.
      const wanted = internalTargetingFilters({ id: before.id, ...values });
      const internal = values.internal_targeting_flag_id === null ? null : await findFlag(client, projectId, values.internal_targeting_flag_id);
      if (internal && !internal.deleted) {
        const changes: OwnedFlagChanges = { filters: { ...internal.filters, ...wanted }, active };
        const flag = await updateOwnedFlag(unit, deps, projectId, internal.id, changes, actor);
        if (flag) flags.push(flag);
      } else {
        const flag = await insertOwnedFlag(unit, deps, projectId, actor, { kind: 'internal', surveyName: values.name, filters: wanted, active });
        flags.push(flag);
        values.internal_targeting_flag_id = flag.id;
      }

      // The response-sampling flag, once.
      const sampling = await ensureSamplingFlag(unit, deps, projectId, actor, values);
      if (sampling) flags.push(sampling);

      const survey = await updateSurvey(client, before.id, values);
      await recordSurveyUpdated(client, before, survey, actor.id, flagChanges);
      await deps.bus.publish(unit, { kind: 'survey', projectId, id: survey.id });
      return { survey, flags };
    }, { retry: true });
  } catch (error) {
    if (isSurveyNameViolation(error)) throw surveyNameTakenError();
    throw error;
  }
}
