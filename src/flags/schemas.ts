import { Type, type Static } from 'typebox';
import { paginatedOf } from '../kernel/http/pagination.ts';
import { UserSummary } from '../accounts/users/user-summary.ts';
import { documentedAs, Nullable, requiring } from '../kernel/http/shapes.ts';
import { FlagFilters } from '../targeting/types.ts';
import { FLAG_STATUSES } from './status.ts';
import { EVALUATION_RUNTIMES } from './validation/choices.ts';

const Int32 = (options: object = {}) => Type.Integer({ minimum: -2147483648, maximum: 2147483647, ...options });
const DateTime = Type.String({ format: 'date-time' });
const FreeObject = Type.Object({}, { additionalProperties: true });

/** The writable fields, as a body on create and update. Nothing is required by schema. */
export const FlagWriteBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
    // Any value here: flags/validation checks it, with PostHog's messages.
    filters: Type.Optional(documentedAs(FlagFilters)),
    deleted: Type.Optional(Type.Boolean()),
    active: Type.Optional(Type.Boolean()),
    archived: Type.Optional(Type.Boolean({ description: 'an archived flag is left out of the default list and must be disabled' })),
    created_at: Type.Optional(DateTime),
    version: Type.Optional(Nullable(Int32())),
    ensure_experience_continuity: Type.Optional(Nullable(Type.Boolean())),
    rollback_conditions: Type.Optional(Type.Unknown()),
    performed_rollback: Type.Optional(Nullable(Type.Boolean())),
    tags: Type.Optional(Type.Array(Type.String())),
    evaluation_tags: Type.Optional(Type.Array(Type.String())),
    analytics_dashboards: Type.Optional(Type.Array(Int32())),
    has_enriched_analytics: Type.Optional(Nullable(Type.Boolean())),
    creation_context: Type.Optional(
      Type.Enum(['feature_flags', 'experiments', 'surveys', 'early_access_features', 'web_experiments', 'product_tours']),
    ),
    is_remote_configuration: Type.Optional(Nullable(Type.Boolean())),
    has_encrypted_payloads: Type.Optional(Nullable(Type.Boolean())),
    evaluation_runtime: Type.Optional(Type.String({ description: 'server, client, all (both = all)' })),
    bucketing_identifier: Type.Optional(Nullable(Type.String({ description: 'distinct_id or device_id' }))),
    last_called_at: Type.Optional(Nullable(DateTime)),
    _create_in_folder: Type.Optional(Nullable(Type.String())),
    _should_create_usage_dashboard: Type.Optional(Type.Boolean()),
    original_flag: Type.Optional(Type.Unknown({ description: 'the flag as the client last saw it (conflict detection)' })),
  },
  { additionalProperties: true },
);
export type FlagWriteBody = Static<typeof FlagWriteBody>;

/** The create and full-update (PUT) body: `key` is required, checked by the route. */
export const FlagFullBody = requiring(FlagWriteBody, ['key']);

export const FlagResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  key: Type.String(),
  filters: documentedAs(FlagFilters, FreeObject),
  deleted: Type.Boolean(),
  active: Type.Boolean(),
  archived: Type.Boolean(),
  created_by: Nullable(UserSummary),
  created_at: Type.String(),
  updated_at: Type.String(),
  version: Type.Integer(),
  last_modified_by: Nullable(UserSummary),
  is_simple_flag: Type.Boolean(),
  rollout_percentage: Nullable(Type.Number()),
  ensure_experience_continuity: Nullable(Type.Boolean()),
  experiment_set: Type.Array(Type.Integer()),
  surveys: Type.Array(FreeObject),
  features: Type.Array(FreeObject),
  rollback_conditions: Type.Unknown(),
  performed_rollback: Nullable(Type.Boolean()),
  can_edit: Type.Boolean(),
  tags: Type.Array(Type.String()),
  evaluation_tags: Type.Array(Type.String()),
  usage_dashboard: Nullable(Type.Integer()),
  analytics_dashboards: Type.Array(Type.Integer()),
  has_enriched_analytics: Nullable(Type.Boolean()),
  user_access_level: Nullable(Type.String()),
  creation_context: Type.String(),
  is_remote_configuration: Nullable(Type.Boolean()),
  has_encrypted_payloads: Nullable(Type.Boolean()),
  status: Type.String({ enum: [...FLAG_STATUSES] }),
  evaluation_runtime: Type.String({ enum: [...EVALUATION_RUNTIMES] }),
  bucketing_identifier: Nullable(Type.String()),
  last_called_at: Nullable(Type.String()),
  _create_in_folder: Nullable(Type.String()),
  _should_create_usage_dashboard: Type.Boolean(),
});
export type FlagResponse = Static<typeof FlagResponse>;

export const FlagListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  active: Type.Optional(
    Type.String({ description: 'true (or any boolean spelling DRF takes: 1, yes, on …): active flags; false (0, no, off …): inactive ones; STALE: stale or inactive', examples: ['true', 'false', 'STALE'] }),
  ),
  created_by_id: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  evaluation_runtime: Type.Optional(Type.Enum(['both', 'all', 'client', 'server'])),
  excluded_properties: Type.Optional(Type.String({ description: 'JSON list of flag keys to leave out' })),
  has_evaluation_tags: Type.Optional(Type.String({ description: 'true (1, yes, on …): with evaluation tags; otherwise without' })),
  search: Type.Optional(Type.String()),
  key: Type.Optional(Type.String({ maxLength: 400, description: 'exact flag key, case-insensitive' })),
  archived: Type.Optional(Type.String({ description: 'true: archived flags only; false: flags not archived. Absent: archived flags are left out.' })),
  deleted: Type.Optional(Type.String({ description: 'Bellwether: true lists deleted flags only (archived or not), to find and restore them. Absent or false: live flags.' })),
  tags: Type.Optional(Type.String({ description: 'JSON list or comma-separated tag names; any of them' })),
  type: Type.Optional(Type.String({ description: 'boolean, multivariant, experiment or remote_config' })),
  order: Type.Optional(
    Type.String({ description: 'key, name, created_at, updated_at, version, last_called_at; prefix - for descending' }),
  ),
});
export type FlagListQuery = Static<typeof FlagListQuery>;

export const FlagListResponse = paginatedOf(FlagResponse);

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const FlagParams = Type.Object({ project_id: Type.String(), id: Type.String() });
