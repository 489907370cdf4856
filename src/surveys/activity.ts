/** The activity log of surveys: created, updated (field changes plus the targeting flag's), deleted. */
import type { WriteTx } from '../db/unit-of-work.ts';
import { diffChanges, type Change } from '../accounts/activity/changes.ts';
import { recordActivity } from '../accounts/activity/store.ts';
import { SURVEY_ACTIVITY_SCOPE, type SurveyRecord } from './record.ts';
import { SURVEY_VALUE_COLUMNS, type SurveyValues } from './store.ts';

/**
 * The model fields compared for `updated`: every written column but the owned flags' ids (their
 * changes are logged by hand: `targeting_flag`, `targeting_flag_filters`, PostHog's manual
 * changes) and the fields PostHog's activity log leaves out.
 */
const NOT_COMPARED = new Set<keyof SurveyValues>([
  'targeting_flag_id',
  'internal_targeting_flag_id',
  'internal_response_sampling_flag_id',
  'form_content',
  'create_in_folder',
]);
const COMPARED_FIELDS = SURVEY_VALUE_COLUMNS.filter((column) => !NOT_COMPARED.has(column));

function jsonish(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(jsonish);
  return value;
}

function comparable(survey: SurveyRecord, fields: readonly string[]): Record<string, unknown> {
  const values = survey as unknown as Record<string, unknown>;
  return Object.fromEntries(fields.map((field) => [field, jsonish(values[field])]));
}

/** The `changes` of these survey fields from `before` to `after`. */
export function surveyFieldChanges(before: SurveyRecord, after: SurveyRecord, fields: readonly string[]): Change[] {
  return diffChanges('Survey', comparable(before, fields), comparable(after, fields), fields);
}

/** A change of the survey's own (as PostHog's `Change(type="Survey", …)`). */
export function surveyChange(action: Change['action'], field: string, before: unknown, after: unknown): Change {
  return { type: 'Survey', action, field, before, after };
}

async function record(
  db: WriteTx,
  survey: SurveyRecord,
  activity: string,
  userId: number | null,
  changes: Change[],
  trigger: unknown = null,
): Promise<void> {
  await recordActivity(db, {
    projectId: survey.project_id,
    scope: SURVEY_ACTIVITY_SCOPE,
    itemId: survey.id,
    activity,
    userId,
    detail: { changes, trigger, type: null, name: survey.name, short_id: null },
  });
}

/** `created`; a duplicate passes its `source_survey_id` change. Runs on the create's transaction. */
export async function recordSurveyCreated(db: WriteTx, survey: SurveyRecord, userId: number | null, changes: Change[] = []): Promise<void> {
  await record(db, survey, 'created', userId, changes);
}

/** `updated` with the changed fields and the flag changes; nothing when nothing changed. */
export async function recordSurveyUpdated(
  db: WriteTx,
  before: SurveyRecord,
  after: SurveyRecord,
  userId: number | null,
  flagChanges: Change[] = [],
): Promise<void> {
  const changes = [...surveyFieldChanges(before, after, COMPARED_FIELDS), ...flagChanges];
  if (changes.length === 0) return;
  await record(db, after, 'updated', userId, changes);
}

export async function recordSurveyDeleted(db: WriteTx, survey: SurveyRecord, userId: number | null): Promise<void> {
  await record(db, survey, 'deleted', userId, []);
}

/** `updated` by a periodic job: no user, `trigger` names the job and what it did. */
export async function recordSurveyJobUpdate(
  db: WriteTx,
  survey: SurveyRecord,
  changes: Change[],
  trigger: { job_type: string; payload: Record<string, unknown> },
): Promise<void> {
  await record(db, survey, 'updated', null, changes, trigger);
}
