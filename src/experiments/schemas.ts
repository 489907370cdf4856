import { Type, type Static } from 'typebox';
import { UserSummary } from '../accounts/users/user-summary.ts';
import { paginatedOf } from '../kernel/http/pagination.ts';
import { MinimalFlag } from '../surveys/schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const FreeObject = Type.Object({}, { additionalProperties: true });
const Metrics = Type.Array(FreeObject, { maxItems: 50, description: 'ExperimentMetric objects (metric_type mean, funnel or ratio)' });

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const ExperimentParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'the experiment id (anything else: 404)' }) });

/** The writable fields, as a body on create and update (PostHog's experiment serializer). */
export const ExperimentWriteBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 3000 }))),
    start_date: Type.Optional(Nullable(DateTime)),
    end_date: Type.Optional(Nullable(DateTime)),
    feature_flag_key: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
    holdout_id: Type.Optional(Nullable(Type.Integer({ minimum: -2147483648, maximum: 2147483647 }))),
    parameters: Type.Optional(Nullable(FreeObject)),
    secondary_metrics: Type.Optional(Nullable(Type.Array(Type.Unknown(), { maxItems: 50 }))),
    saved_metrics_ids: Type.Optional(Nullable(Type.Unknown({ description: 'not served: must be empty or null' }))),
    filters: Type.Optional(Nullable(FreeObject)),
    archived: Type.Optional(Type.Boolean()),
    deleted: Type.Optional(Type.Boolean()),
    type: Type.Optional(Nullable(Type.Enum(['product', 'web']))),
    exposure_criteria: Type.Optional(Nullable(FreeObject)),
    metrics: Type.Optional(Nullable(Metrics)),
    metrics_secondary: Type.Optional(Nullable(Metrics)),
    stats_config: Type.Optional(Nullable(FreeObject)),
    conclusion: Type.Optional(Nullable(Type.Enum(['won', 'lost', 'inconclusive', 'stopped_early', 'invalid']))),
    conclusion_comment: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    primary_metrics_ordered_uuids: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 50 }))),
    secondary_metrics_ordered_uuids: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 50 }))),
    scheduling_config: Type.Optional(Nullable(FreeObject)),
    only_count_matured_users: Type.Optional(Type.Boolean()),
    excluded_variants: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 20 }))),
    _create_in_folder: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);
export type ExperimentWriteBody = Static<typeof ExperimentWriteBody>;

export const ExperimentResponse = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    start_date: Nullable(Type.String()),
    end_date: Nullable(Type.String()),
    feature_flag_key: Type.String(),
    feature_flag: Nullable(MinimalFlag),
    holdout: Type.Null({ description: 'holdouts are not served' }),
    holdout_id: Type.Null(),
    exposure_cohort: Type.Null(),
    parameters: FreeObject,
    secondary_metrics: Type.Array(Type.Unknown()),
    saved_metrics: Type.Array(Type.Unknown(), { description: 'saved metrics are not served: always empty' }),
    saved_metrics_ids: Type.Null(),
    filters: FreeObject,
    archived: Type.Boolean(),
    deleted: Type.Boolean(),
    created_by: Nullable(UserSummary),
    created_at: Type.String(),
    updated_at: Type.String(),
    type: Type.String(),
    exposure_criteria: Nullable(FreeObject),
    metrics: Type.Array(FreeObject),
    metrics_secondary: Type.Array(FreeObject),
    stats_config: Nullable(FreeObject),
    conclusion: Nullable(Type.String()),
    conclusion_comment: Nullable(Type.String()),
    primary_metrics_ordered_uuids: Nullable(Type.Array(Type.String())),
    secondary_metrics_ordered_uuids: Nullable(Type.Array(Type.String())),
    user_access_level: Type.String(),
    status: Type.Enum(['draft', 'running', 'stopped']),
    scheduling_config: Nullable(FreeObject),
    only_count_matured_users: Type.Boolean(),
    excluded_variants: Type.Array(Type.String()),
  },
  { additionalProperties: true },
);

export const ExperimentListResponse = paginatedOf(ExperimentResponse);

export const ExperimentListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  status: Type.Optional(Type.String({ description: 'draft, running, paused, complete/stopped; anything else: all' })),
  archived: Type.Optional(Type.String({ description: '`true`: archived only; absent or any other value: not archived' })),
  created_by_id: Type.Optional(Type.String({ description: 'a user id, or several separated by commas' })),
  search: Type.Optional(Type.String({ maxLength: 400, description: 'case-insensitive substring of the name' })),
  feature_flag_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  order: Type.Optional(Type.String({ description: 'name, created_at, updated_at, start_date, end_date, duration, status; `-` for descending' })),
});
export type ExperimentListQuery = Static<typeof ExperimentListQuery>;

export const DuplicateBody = Type.Object(
  { feature_flag_key: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })), name: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })) },
  { additionalProperties: true },
);
export type DuplicateBody = Static<typeof DuplicateBody>;

export const EndBody = Type.Object(
  {
    conclusion: Type.Optional(Nullable(Type.Enum(['won', 'lost', 'inconclusive', 'stopped_early', 'invalid']))),
    conclusion_comment: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    open_cleanup_pr: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type EndBody = Static<typeof EndBody>;

export const ShipVariantBody = Type.Object(
  {
    variant_key: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
    release_to_everyone: Type.Optional(Type.Boolean()),
    conclusion: Type.Optional(Nullable(Type.Enum(['won', 'lost', 'inconclusive', 'stopped_early', 'invalid']))),
    conclusion_comment: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    open_cleanup_pr: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);
export type ShipVariantBody = Static<typeof ShipVariantBody>;

export const ArchiveBody = Type.Object({ disable_feature_flag: Type.Optional(Type.Boolean()) }, { additionalProperties: true });
export type ArchiveBody = Static<typeof ArchiveBody>;
