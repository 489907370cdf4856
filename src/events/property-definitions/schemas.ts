import { Type, type Static } from 'typebox';
import { paginatedOf } from '../../kernel/http/pagination.ts';
import { UserSummary } from '../../accounts/users/user-summary.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Nullable(Type.String({ format: 'date-time' }));

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const PropertyDefinitionParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'UUID' }) });

/** The property types a definition may hold (PostHog's PropertyType, plus Object). */
export const PROPERTY_TYPES = ['DateTime', 'String', 'Numeric', 'Boolean', 'Duration', 'Object'] as const;

export const PropertyDefinition = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  is_numerical: Type.Boolean(),
  updated_at: Type.String({ format: 'date-time' }),
  updated_by: Nullable(UserSummary),
  is_seen_on_filtered_events: Nullable(Type.Boolean({ description: 'set when the list was asked with `event_names`' })),
  property_type: Nullable(Type.String({ description: PROPERTY_TYPES.join(', ') })),
  verified: Type.Boolean(),
  verified_at: Timestamp,
  verified_by: Nullable(UserSummary),
  hidden: Type.Boolean(),
  type: Type.String({ description: 'event, person or group' }),
  group_type_index: Nullable(Type.Integer()),
});
export type PropertyDefinition = Static<typeof PropertyDefinition>;

export const PropertyDefinitionList = paginatedOf(PropertyDefinition);

export const UpdatePropertyDefinitionBody = Type.Object(
  {
    description: Type.Optional(Nullable(Type.String())),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 255 }))),
    property_type: Type.Optional(Nullable(Type.Enum(PROPERTY_TYPES))),
    verified: Type.Optional(Type.Boolean()),
    hidden: Type.Optional(Nullable(Type.Boolean())),
  },
  { additionalProperties: true, description: '`name`, `type` and the stamps are read-only and ignored.' },
);
export type UpdatePropertyDefinitionBody = Static<typeof UpdatePropertyDefinitionBody>;

export const PropertyDefinitionListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  type: Type.Optional(Type.String({ description: 'event (default), person or group (with group_type_index)' })),
  group_type_index: Type.Optional(Type.Integer({ minimum: 0, maximum: 4 })),
  search: Type.Optional(Type.String({ description: 'space-separated terms, each matched anywhere in the name (case-insensitive, % and _ literal)' })),
  event_names: Type.Optional(
    Type.String({ description: 'JSON list of event names: sets is_seen_on_filtered_events and lists those properties first' }),
  ),
  filter_by_event_names: Type.Optional(Type.String({ description: 'true: only properties seen with `event_names`' })),
  properties: Type.Optional(Type.String({ description: 'comma-separated names' })),
  is_numerical: Type.Optional(Type.String({ description: 'true or false' })),
  is_feature_flag: Type.Optional(Type.String({ description: 'true: only $feature/* properties; false: none of them' })),
  excluded_properties: Type.Optional(Type.String({ description: 'JSON list of property names to leave out' })),
  exclude_hidden: Type.Optional(Type.String({ description: 'true: leave hidden definitions out' })),
  exclude_core_properties: Type.Optional(Type.String({ description: 'true: leave PostHog\'s own ($-prefixed) properties out' })),
});
export type PropertyDefinitionListQuery = Static<typeof PropertyDefinitionListQuery>;
