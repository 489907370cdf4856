/** The two answers of a survey: the read shape (list, retrieve) and the write shape (POST, PATCH). */
import type { ProjectFlags } from '../flags/cache.ts';
import type { FlagRecord } from '../flags/record.ts';
import type { Membership } from '../accounts/auth/principal.ts';
import { isoUtc } from '../kernel/time.ts';
import { minimalFlag, presentedFilters } from './flags/present.ts';
import type { SurveyRecord } from './record.ts';
import { renderDailyLimits } from './schedule.ts';
import type { SurveyResponse, SurveyWriteResponse } from './schemas.ts';

/** Who is looking: decides `user_access_level`. */
export interface SurveyViewer {
  userId: number;
  organizationLevel: Membership['level'] | null;
}

/** Reads a flag by id (the project's flag cache, or records just written). */
export type FlagSource = (id: number | null) => FlagRecord | null;

export function flagsFrom(project: ProjectFlags, written: Iterable<FlagRecord | null | undefined> = []): FlagSource {
  const fresh = new Map<number, FlagRecord>();
  for (const record of written) if (record) fresh.set(record.id, record);
  return (id) => (id === null ? null : (fresh.get(id) ?? project.get(id)?.record ?? null));
}

/** Creators and organization admins manage a survey; every other member may edit it (PostHog's default). */
function accessLevel(survey: SurveyRecord, viewer: SurveyViewer): 'manager' | 'editor' {
  if (viewer.organizationLevel === 'admin' || viewer.organizationLevel === 'owner') return 'manager';
  return survey.created_by_id === viewer.userId ? 'manager' : 'editor';
}

function common(survey: SurveyRecord, flags: FlagSource) {
  const linked = flags(survey.linked_flag_id);
  const targeting = flags(survey.targeting_flag_id);
  const internal = flags(survey.internal_targeting_flag_id);
  return {
    id: survey.id,
    name: survey.name,
    description: survey.description,
    type: survey.type,
    schedule: survey.schedule,
    linked_flag: linked ? minimalFlag(linked) : null,
    targeting_flag: targeting ? minimalFlag(targeting) : null,
    internal_targeting_flag: internal ? minimalFlag(internal) : null,
    questions: survey.questions ?? null,
    conditions: survey.conditions ?? null,
    appearance: survey.appearance ?? null,
    created_at: isoUtc(survey.created_at),
    created_by: survey.created_by,
    start_date: isoUtc(survey.start_date),
    end_date: isoUtc(survey.end_date),
    archived: survey.archived,
    responses_limit: survey.responses_limit,
    iteration_count: survey.iteration_count,
    iteration_frequency_days: survey.iteration_frequency_days,
    iteration_start_dates: survey.iteration_start_dates === null ? null : survey.iteration_start_dates.map((d) => isoUtc(d)),
    current_iteration: survey.current_iteration,
    current_iteration_start_date: isoUtc(survey.current_iteration_start_date),
    response_sampling_start_date: isoUtc(survey.response_sampling_start_date),
    response_sampling_interval_type: survey.response_sampling_interval_type,
    response_sampling_interval: survey.response_sampling_interval,
    response_sampling_limit: survey.response_sampling_limit,
    response_sampling_daily_limits: renderDailyLimits(survey.response_sampling_daily_limits),
    enable_partial_responses: survey.enable_partial_responses,
    enable_iframe_embedding: survey.enable_iframe_embedding,
    translations: survey.translations ?? null,
    form_content: survey.form_content ?? null,
  };
}

/** The four flag keys, always in this order. */
export function featureFlagKeys(survey: SurveyRecord, flags: FlagSource): SurveyResponse['feature_flag_keys'] {
  const key = (id: number | null) => flags(id)?.key ?? null;
  return [
    { key: 'linked_flag_key', value: key(survey.linked_flag_id) },
    { key: 'targeting_flag_key', value: key(survey.targeting_flag_id) },
    { key: 'internal_targeting_flag_key', value: key(survey.internal_targeting_flag_id) },
    { key: 'internal_response_sampling_flag_key', value: key(survey.internal_response_sampling_flag_id) },
  ];
}

/** List items and retrieve. */
export function presentSurvey(survey: SurveyRecord, flags: FlagSource, viewer: SurveyViewer): SurveyResponse {
  return {
    ...common(survey, flags),
    linked_flag_id: survey.linked_flag_id,
    linked_insight_id: survey.linked_insight_id,
    feature_flag_keys: featureFlagKeys(survey, flags),
    user_access_level: accessLevel(survey, viewer),
  };
}

/**
 * The POST/PATCH answer: the read shape without linked_flag_id, linked_insight_id,
 * feature_flag_keys and user_access_level, echoing the write-only fields: the survey's
 * targeting flag id and filters as now stored, `remove_targeting_flag` as sent (else null), and
 * `_create_in_folder`.
 */
export function presentWrittenSurvey(survey: SurveyRecord, flags: FlagSource, removeTargetingFlag: boolean | null | undefined): SurveyWriteResponse {
  const targeting = flags(survey.targeting_flag_id);
  return {
    ...common(survey, flags),
    targeting_flag_id: survey.targeting_flag_id,
    targeting_flag_filters: targeting ? presentedFilters(targeting.filters) : null,
    remove_targeting_flag: removeTargetingFlag ?? null,
    _create_in_folder: survey.create_in_folder,
  };
}
