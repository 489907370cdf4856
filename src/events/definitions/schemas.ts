import { Type, type Static } from 'typebox';
import { paginatedOf } from '../../kernel/http/pagination.ts';
import { UserSummary } from '../../accounts/users/user-summary.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Nullable(Type.String({ format: 'date-time' }));

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const DefinitionParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'UUID' }) });

export const ENFORCEMENT_MODES = ['allow', 'reject'] as const;

/** Fields a client may write; read-only fields (id, created_at, verified_at, …) are accepted and ignored. */
const writable = {
  owner: Type.Optional(Nullable(Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: 'a user id; answered as a user object' }))),
  description: Type.Optional(Nullable(Type.String())),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 255 }))),
  verified: Type.Optional(Type.Boolean()),
  hidden: Type.Optional(Nullable(Type.Boolean())),
  default_columns: Type.Optional(Nullable(Type.Array(Type.String()))),
  enforcement_mode: Type.Optional(Type.Enum(ENFORCEMENT_MODES)),
  primary_property: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
  post_to_slack: Type.Optional(Type.Boolean({ description: 'accepted and discarded' })),
};

export const CreateDefinitionBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 400 }), ...writable },
  { additionalProperties: true },
);
export type CreateDefinitionBody = Static<typeof CreateDefinitionBody>;

export const UpdateDefinitionBody = Type.Object(writable, {
  additionalProperties: true,
  description: '`name` is read-only after creation and ignored here.',
});
export type UpdateDefinitionBody = Static<typeof UpdateDefinitionBody>;

export const EventDefinition = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  owner: Nullable(UserSummary),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Type.String({ format: 'date-time' }),
  updated_by: Nullable(UserSummary),
  last_seen_at: Timestamp,
  verified: Type.Boolean(),
  verified_at: Timestamp,
  verified_by: Nullable(UserSummary),
  hidden: Type.Boolean(),
  enforcement_mode: Type.String({ description: 'allow or reject' }),
  primary_property: Nullable(Type.String()),
  is_action: Type.Boolean({ description: 'always false' }),
  post_to_slack: Type.Boolean({ description: 'always false' }),
  default_columns: Type.Array(Type.String()),
});
export type EventDefinition = Static<typeof EventDefinition>;

export const EventDefinitionList = paginatedOf(EventDefinition);

export const EVENT_TYPES = ['event', 'event_custom', 'event_posthog', 'all', 'action_event'] as const;

export const DefinitionListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  search: Type.Optional(Type.String({ description: 'space-separated terms, each matched anywhere in the name (case-insensitive, % and _ literal)' })),
  event_type: Type.Optional(Type.String({ description: EVENT_TYPES.join(', ') })),
  ordering: Type.Optional(
    Type.Array(Type.String(), {
      description: 'name, last_seen_at, last_seen_at::date, created_at, created_at::date; `-` for descending; repeated or comma-joined',
    }),
  ),
  exclude_hidden: Type.Optional(Type.String({ description: 'true: leave hidden definitions out' })),
  tags: Type.Optional(Type.String({ description: 'JSON list (or comma list) of tags; any of them' })),
  excluded_properties: Type.Optional(Type.String({ description: 'JSON list of event names to leave out' })),
  names: Type.Optional(Type.Array(Type.String(), { description: 'exact names; repeated or comma-joined' })),
  verified: Type.Optional(Type.String({ description: 'true: verified definitions only; false: the others; anything else: no filter' })),
});
export type DefinitionListQuery = Static<typeof DefinitionListQuery>;

export const DefinitionMetrics = Type.Object({
  query_usage_30_day: Type.Integer({ description: 'always 0: Bellwether does not track queries' }),
  volume_30_day: Type.Integer({ description: 'events with this name stored in the last 30 days' }),
  last_seen_at: Timestamp,
});
export type DefinitionMetrics = Static<typeof DefinitionMetrics>;

export const VolumeQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, description: 'the UTC days before today to cover (default 30), today included' })),
});

export const DefinitionVolume = Type.Object({
  days: Type.Array(Type.String({ description: 'YYYY-MM-DD (UTC), oldest first' })),
  counts: Type.Array(Type.Integer(), { description: 'events with this name stored on each day' }),
  total: Type.Integer(),
});
export type DefinitionVolume = Static<typeof DefinitionVolume>;
