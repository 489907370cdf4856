import { Type, type Static } from 'typebox';
import { paginatedOf } from '../kernel/http/pagination.ts';
import { UserSummary } from '../accounts/users/user-summary.ts';
import { documentedAs, Nullable, requiring } from '../kernel/http/shapes.ts';
import { FlagFilters } from '../targeting/types.ts';
import { NullableAppearance, NullableConditions, SurveyQuestions } from './validation/shapes.ts';

const Int32 = (options: object = {}) => Type.Integer({ minimum: -2147483648, maximum: 2147483647, ...options });
const PositiveInt = () => Int32({ minimum: 0 });
const TargetingFilters = Nullable(FlagFilters, {
  description: 'filters for the targeting flag the survey owns (created, updated or, with null, removed)',
});
const DateTime = Type.String({ format: 'date-time' });

export const SURVEY_TYPES = ['popover', 'widget', 'api', 'external_survey'] as const;

/**
 * The writable fields, as a body on create and update. Field-level DRF checks live
 * here (types, ranges, choices); the rules with PostHog's own messages are in validation/.
 */
export const SurveyWriteBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
    description: Type.Optional(Type.String()),
    type: Type.Optional(Type.Enum([...SURVEY_TYPES])),
    schedule: Type.Optional(Type.Unknown({ description: 'once, recurring, always (or null)' })),
    linked_flag_id: Type.Optional(Nullable(Int32())),
    linked_insight_id: Type.Optional(Nullable(Int32())),
    targeting_flag_id: Type.Optional(Nullable(Int32())),
    // Any value in these four: validation/ checks them, with PostHog's messages.
    targeting_flag_filters: Type.Optional(documentedAs(TargetingFilters)),
    remove_targeting_flag: Type.Optional(Nullable(Type.Boolean())),
    questions: Type.Optional(documentedAs(SurveyQuestions)),
    conditions: Type.Optional(documentedAs(NullableConditions)),
    appearance: Type.Optional(documentedAs(NullableAppearance)),
    translations: Type.Optional(Type.Unknown()),
    start_date: Type.Optional(Nullable(DateTime)),
    end_date: Type.Optional(Nullable(DateTime)),
    archived: Type.Optional(Type.Boolean()),
    responses_limit: Type.Optional(Nullable(PositiveInt())),
    iteration_count: Type.Optional(Nullable(Int32({ minimum: 0, maximum: 500 }))),
    iteration_frequency_days: Type.Optional(Nullable(PositiveInt())),
    iteration_start_dates: Type.Optional(Nullable(Type.Array(Nullable(DateTime)))),
    current_iteration: Type.Optional(Nullable(PositiveInt())),
    current_iteration_start_date: Type.Optional(Nullable(DateTime)),
    response_sampling_start_date: Type.Optional(Nullable(DateTime)),
    response_sampling_interval_type: Type.Optional(Nullable(Type.Enum(['day', 'week', 'month']))),
    response_sampling_interval: Type.Optional(Nullable(PositiveInt())),
    response_sampling_limit: Type.Optional(Nullable(PositiveInt())),
    response_sampling_daily_limits: Type.Optional(Type.Unknown()),
    enable_partial_responses: Type.Optional(Nullable(Type.Boolean())),
    enable_iframe_embedding: Type.Optional(Type.Boolean()),
    _create_in_folder: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);
export type SurveyWriteBody = Static<typeof SurveyWriteBody>;

/** The create and full-update (PUT) body: `name` and `type` are required, checked by validation/. */
export const SurveyFullBody = requiring(SurveyWriteBody, ['name', 'type']);

const FreeObject = Type.Object({}, { additionalProperties: true });
const IsoDateTime = Type.String({ description: 'ISO 8601 UTC with Z' });

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const SurveyParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'the survey uuid' }) });

export const SurveyListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  search: Type.Optional(Type.String({ description: 'case-insensitive match on name and description' })),
  archived: Type.Optional(Type.String({ description: '`true`: archived surveys only; any other value: not archived' })),
});
export type SurveyListQuery = Static<typeof SurveyListQuery>;

/** PostHog's MinimalFeatureFlagSerializer, embedded as linked_flag, targeting_flag, internal_targeting_flag. */
export const MinimalFlag = Type.Object({
  id: Type.Integer(),
  team_id: Type.Integer(),
  name: Type.String(),
  key: Type.String(),
  filters: documentedAs(FlagFilters, FreeObject),
  deleted: Type.Boolean(),
  active: Type.Boolean(),
  ensure_experience_continuity: Type.Boolean(),
  has_encrypted_payloads: Type.Boolean(),
  version: Type.Integer(),
  evaluation_runtime: Type.String(),
  evaluation_contexts: Type.Array(Type.String()),
  evaluation_tags: Type.Array(Type.String()),
  bucketing_identifier: Type.String(),
});
export type MinimalFlag = Static<typeof MinimalFlag>;

const FlagKeyEntry = Type.Object({
  key: Type.Enum(['linked_flag_key', 'targeting_flag_key', 'internal_targeting_flag_key', 'internal_response_sampling_flag_key']),
  value: Nullable(Type.String()),
});

/** The keys every survey answer has, read and write shapes alike. */
const commonFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  type: Type.String(),
  schedule: Nullable(Type.String()),
  linked_flag: Nullable(MinimalFlag),
  targeting_flag: Nullable(MinimalFlag),
  internal_targeting_flag: Nullable(MinimalFlag),
  questions: documentedAs(SurveyQuestions, Type.Unknown({ description: 'the question objects, each with an id' })),
  conditions: documentedAs(NullableConditions, Type.Unknown()),
  appearance: documentedAs(NullableAppearance, Type.Unknown()),
  created_at: IsoDateTime,
  created_by: Nullable(UserSummary),
  start_date: Nullable(IsoDateTime),
  end_date: Nullable(IsoDateTime),
  archived: Type.Boolean(),
  responses_limit: Nullable(Type.Integer()),
  iteration_count: Nullable(Type.Integer()),
  iteration_frequency_days: Nullable(Type.Integer()),
  iteration_start_dates: Nullable(Type.Array(Nullable(IsoDateTime))),
  current_iteration: Nullable(Type.Integer()),
  current_iteration_start_date: Nullable(IsoDateTime),
  response_sampling_start_date: Nullable(IsoDateTime),
  response_sampling_interval_type: Nullable(Type.String()),
  response_sampling_interval: Nullable(Type.Integer()),
  response_sampling_limit: Nullable(Type.Integer()),
  response_sampling_daily_limits: Nullable(Type.String({ description: 'the daily schedule JSON-encoded into a string, as PostHog answers it' })),
  enable_partial_responses: Nullable(Type.Boolean()),
  enable_iframe_embedding: Type.Boolean(),
  translations: Type.Unknown(),
  form_content: Type.Unknown(),
};

/** List items and retrieve (PostHog's SurveySerializer). */
export const SurveyResponse = Type.Object({
  ...commonFields,
  linked_flag_id: Nullable(Type.Integer()),
  linked_insight_id: Nullable(Type.Integer()),
  feature_flag_keys: Type.Array(FlagKeyEntry, { description: 'always four entries, in this order' }),
  user_access_level: Type.String({ description: 'manager (creator or organization admin) or editor' }),
});
export type SurveyResponse = Static<typeof SurveyResponse>;

/** The POST 201 and PATCH 200 answers (SurveySerializerCreateUpdateOnly), echoing the write-only fields. */
export const SurveyWriteResponse = Type.Object({
  ...commonFields,
  targeting_flag_id: Nullable(Type.Integer()),
  targeting_flag_filters: documentedAs(TargetingFilters, Nullable(FreeObject)),
  remove_targeting_flag: Nullable(Type.Boolean()),
  _create_in_folder: Nullable(Type.String()),
});
export type SurveyWriteResponse = Static<typeof SurveyWriteResponse>;

export const SurveyListResponse = paginatedOf(SurveyResponse);

export const DuplicateBody = Type.Object(
  {
    target_team_ids: Type.Optional(Type.Unknown({ description: 'the target project ids (a non-empty list of integers)' })),
    target_project_ids: Type.Optional(Type.Unknown({ description: 'the same, by its other name' })),
  },
  { additionalProperties: true },
);
export type DuplicateBody = Static<typeof DuplicateBody>;

export const DuplicateResponse = Type.Object({
  created_surveys: Type.Array(Type.Object({ team_id: Type.Integer(), survey_id: Type.String({ format: 'uuid' }), name: Type.String() })),
  count: Type.Integer(),
});
