import { validationError } from '../../kernel/errors.ts';
import type { SurveyRecord } from '../record.ts';
import type { SurveyWriteBody } from '../schemas.ts';
import { fieldError, objectError } from '../errors.ts';
import { checkExternalSurvey } from './external-survey-rules.ts';
import { checkLinkedFlag, checkLinkedFlagVariant, checkTargetingFlag } from './flag-rules.ts';
import type { SurveyValidationContext } from './context.ts';
import { isPlainObject, isTruthy, pythonTypeName } from './python.ts';
import { checkResponseSampling } from './sampling-rules.ts';

/**
 * The ten object-level rules of PostHog's survey serializer, in its order, over the request's fields after
 * the field-level checks (`data` holds the cleaned questions, appearance and translations).
 */
export async function checkObjectRules(data: SurveyWriteBody, context: SurveyValidationContext): Promise<void> {
  const linkedFlag = await checkLinkedFlag(data, context.lookup);
  await checkTargetingFlag(data, context.lookup);
  checkLinkedFlagVariant(data, linkedFlag);
  await checkNameIsFree(data, context);
  checkTargetingDoesNotRollOutToEveryone(data.targeting_flag_filters);
  checkResponseSampling(data, context.now);
  checkShuffleWithoutBranching(data, context.existing);
  checkExternalSurvey(data);
}

/**
 * Rule 4, per project: on create any survey holding the name; on update only when the name changes.
 * PostHog raises these from `validate()` (attr null); this service names the field (attr `name`).
 */
async function checkNameIsFree(data: SurveyWriteBody, context: SurveyValidationContext): Promise<void> {
  const name = data.name;
  if (name === undefined) return;
  if (context.isCreate) {
    if (await context.lookup.surveyNameTaken(name, null)) {
      throw validationError('There is already a survey with this name.', 'name', 'unique');
    }
    return;
  }
  const existing = context.existing;
  if (existing && name !== existing.name && (await context.lookup.surveyNameTaken(name, existing.id))) {
    throw validationError('There is already another survey with this name.', 'name', 'unique');
  }
}

/**
 * Rule 5: targeting filters with a group that has no properties and rolls out to 100 % (or an unset
 * rollout) would target everyone. Groups of another shape are left to the flag filters validation
 * that runs when the targeting flag is written; filters that are not an object are refused here
 * (PostHog fails on them with a 500).
 */
function checkTargetingDoesNotRollOutToEveryone(filters: unknown): void {
  if (!isTruthy(filters)) return;
  if (!isPlainObject(filters)) {
    throw fieldError(
      'targeting_flag_filters',
      `Expected a dictionary of items but got type "${pythonTypeName(filters)}".`,
      'not_a_dict',
    );
  }
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  const rollsOutToEveryone = groups.some(
    (group) =>
      isPlainObject(group) &&
      (group.rollout_percentage === 100 || group.rollout_percentage === null || group.rollout_percentage === undefined) &&
      (group.properties === undefined || group.properties === null || (Array.isArray(group.properties) && group.properties.length === 0)),
  );
  if (rollsOutToEveryone) {
    throw objectError(
      'Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting',
    );
  }
}

/**
 * Rule 9: question shuffling and branching exclude each other, judged on the survey as it will be:
 * the stored appearance with the sent one merged over it, and the sent questions (else the stored).
 */
function checkShuffleWithoutBranching(data: SurveyWriteBody, existing: SurveyRecord | null): void {
  const appearance = {
    ...(existing && isPlainObject(existing.appearance) ? existing.appearance : {}),
    ...(isPlainObject(data.appearance) ? data.appearance : {}),
  };
  if (!isTruthy(appearance.shuffleQuestions)) return;
  const questions = data.questions !== undefined && data.questions !== null ? data.questions : existing?.questions;
  if (!Array.isArray(questions)) return;
  const branches = questions.some((question) => isPlainObject(question) && question.branching !== undefined && question.branching !== null);
  if (branches) {
    throw objectError(
      'Question shuffling and question branching cannot be used together. Please disable one of these features.',
    );
  }
}
