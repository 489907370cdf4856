/** What create, update and duplicate share: the values a body writes, the save-time fields, the lookups, the errors. */
import { randomUUID } from 'node:crypto';
import type { ReadHandle } from '../db/pool.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import { flagLookup } from '../flags/lookup.ts';
import { liveFlagsByIds } from '../flags/store.ts';
import type { FlagFilters } from '../targeting/types.ts';
import { validateFilters } from '../flags/validation/index.ts';
import type { FlagWriteDeps } from '../flags/write-deps.ts';
import { ApiError, validationError } from '../kernel/errors.ts';
import type { SurveyRecord } from './record.ts';
import { dailyLimitsSchedule, iterationFields } from './schedule.ts';
import type { SurveyWriteBody } from './schemas.ts';
import type { SurveyValues } from './store.ts';
import { surveyNameTaken } from './store.ts';
import type { SurveyLookup } from './validation/context.ts';
import { isPlainObject } from './validation/python.ts';

/** What a survey write needs: the database, change notices and the flag cache. */
export type SurveyWriteDeps = FlagWriteDeps;

/** The defaults of a new survey, before the body is applied. */
export function newSurveyValues(): SurveyValues {
  return {
    name: '',
    description: '',
    type: 'popover',
    schedule: 'once',
    linked_flag_id: null,
    linked_insight_id: null,
    targeting_flag_id: null,
    internal_targeting_flag_id: null,
    internal_response_sampling_flag_id: null,
    questions: null,
    conditions: null,
    appearance: null,
    translations: null,
    form_content: null,
    start_date: null,
    end_date: null,
    archived: false,
    responses_limit: null,
    iteration_count: null,
    iteration_frequency_days: null,
    iteration_start_dates: [],
    current_iteration: null,
    current_iteration_start_date: null,
    response_sampling_start_date: null,
    response_sampling_interval_type: 'week',
    response_sampling_interval: null,
    response_sampling_limit: null,
    response_sampling_daily_limits: null,
    enable_partial_responses: false,
    enable_iframe_embedding: false,
    create_in_folder: null,
  };
}

export function valuesOf(survey: SurveyRecord): SurveyValues {
  const {
    id: _id,
    project_id: _project,
    created_at: _created,
    created_by_id: _creatorId,
    created_by: _creator,
    updated_at: _updated,
    headline_summary: _headline,
    headline_response_count: _headlineCount,
    question_summaries: _summaries,
    ...values
  } = survey;
  return values;
}

const date = (value: string | null) => (value === null ? null : new Date(value));

/**
 * Applies the body's plain fields. The flag fields (targeting_flag_id, targeting_flag_filters,
 * remove_targeting_flag) and the fields recomputed on save (iteration start dates, daily limits)
 * are not applied here.
 */
export function applyBody(values: SurveyValues, body: SurveyWriteBody): SurveyValues {
  const next = { ...values };
  if (body.name !== undefined) next.name = body.name;
  if (body.description !== undefined) next.description = body.description ?? '';
  if (body.type !== undefined) next.type = body.type;
  if (body.schedule !== undefined) next.schedule = (body.schedule as string | null) ?? null;
  if (body.linked_flag_id !== undefined) next.linked_flag_id = body.linked_flag_id;
  if (body.linked_insight_id !== undefined) next.linked_insight_id = body.linked_insight_id;
  if (body.questions !== undefined) next.questions = body.questions;
  if (body.conditions !== undefined) next.conditions = body.conditions;
  if (body.appearance !== undefined) next.appearance = body.appearance;
  if (body.translations !== undefined) next.translations = body.translations;
  if (body.start_date !== undefined) next.start_date = date(body.start_date);
  if (body.end_date !== undefined) next.end_date = date(body.end_date);
  if (body.archived !== undefined) next.archived = body.archived;
  if (body.responses_limit !== undefined) next.responses_limit = body.responses_limit;
  if (body.iteration_count !== undefined) next.iteration_count = body.iteration_count;
  if (body.iteration_frequency_days !== undefined) next.iteration_frequency_days = body.iteration_frequency_days;
  if (body.current_iteration !== undefined) next.current_iteration = body.current_iteration;
  if (body.current_iteration_start_date !== undefined) next.current_iteration_start_date = date(body.current_iteration_start_date);
  if (body.response_sampling_start_date !== undefined) next.response_sampling_start_date = date(body.response_sampling_start_date);
  if (body.response_sampling_interval_type !== undefined) next.response_sampling_interval_type = body.response_sampling_interval_type;
  if (body.response_sampling_interval !== undefined) next.response_sampling_interval = body.response_sampling_interval;
  if (body.response_sampling_limit !== undefined) next.response_sampling_limit = body.response_sampling_limit;
  if (body.enable_partial_responses !== undefined) next.enable_partial_responses = body.enable_partial_responses;
  if (body.enable_iframe_embedding !== undefined) next.enable_iframe_embedding = body.enable_iframe_embedding;
  if (body._create_in_folder !== undefined) next.create_in_folder = body._create_in_folder;
  return next;
}

/** A question without an `id` gets a uuid4 string; client ids are kept. */
export function withQuestionIds(questions: unknown): unknown {
  if (!Array.isArray(questions)) return questions;
  return questions.map((question) =>
    isPlainObject(question) && !question.id
      ? { ...question, id: randomUUID() }
      : question,
  );
}

/** The pre-save hook: iteration fields, the daily limits schedule, question ids. */
export function onSave(values: SurveyValues): SurveyValues {
  return {
    ...values,
    ...iterationFields(values),
    response_sampling_daily_limits: dailyLimitsSchedule(values),
    questions: withQuestionIds(values.questions),
  };
}

/** The survey rules' view of the project, read on `db` (the write's transaction). */
export function surveyLookup(db: ReadHandle, projectId: number): SurveyLookup {
  return {
    async flagById(id) {
      const [flag] = await liveFlagsByIds(db, projectId, [id]);
      return flag ? { id: flag.id, key: flag.key, filters: flag.filters } : null;
    },
    surveyNameTaken: (name, exceptId) => surveyNameTaken(db, projectId, name, exceptId),
  };
}

/**
 * `targeting_flag_filters` through the normal flag filter validation; a behavioural cohort error is
 * reworded for surveys.
 */
export async function validateTargetingFilters(db: ReadHandle, projectId: number, raw: unknown, flagId: number | null): Promise<FlagFilters> {
  try {
    return await validateFilters(raw, { isCreate: flagId === null, flagId, flagKey: null, lookup: flagLookup(db, projectId) });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'behavioral_cohort_found') {
      throw validationError(error.message.replace(/cannot be used in feature flags\.$/, 'cannot be used in surveys.'), null, error.code);
    }
    throw error;
  }
}

/** A live flag of the project for `targeting_flag_id`, or PostHog's message. */
export async function requireTargetingFlag(db: ReadHandle, projectId: number, id: number): Promise<void> {
  const [flag] = await liveFlagsByIds(db, projectId, [id]);
  if (!flag) throw validationError('Targeting Feature Flag with this ID does not exist');
}

/** A live flag of the project for `linked_flag_id`, or PostHog's message. */
export async function requireLinkedFlag(db: ReadHandle, projectId: number, id: number | null): Promise<void> {
  if (id === null) return;
  // PostHog's primary-key field refuses an id no row has before its own rule (which skips 0) runs.
  if (id === 0) throw validationError('Invalid pk "0" - object does not exist.', 'linked_flag_id', 'does_not_exist');
  const [flag] = await liveFlagsByIds(db, projectId, [id]);
  if (!flag) throw validationError('Feature Flag with this ID does not exist');
}

export const SURVEY_NAME_INDEX = 'surveys_project_name_idx';

/** The (project_id, name) unique index fired: another write took the name first. */
export function isSurveyNameViolation(error: unknown): boolean {
  return isUniqueViolation(error, SURVEY_NAME_INDEX);
}
