import { Type, type Static } from 'typebox';
import { paginatedOf } from '../../kernel/http/pagination.ts';
import { UserSummary } from '../../accounts/users/user-summary.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const ItemParams = Type.Object({ project_id: Type.String(), id: Type.String({ description: 'UUID' }) });

/** What the code generators map (String, Numeric, Boolean, DateTime, Object, Array). */
export const SCHEMA_PROPERTY_TYPES = ['String', 'Numeric', 'Boolean', 'DateTime', 'Object', 'Array'] as const;

export const SchemaPropertyInput = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'an existing property of this group: updated; absent or unknown: created' })),
    name: Type.String({ minLength: 1, maxLength: 400 }),
    property_type: Type.Enum(SCHEMA_PROPERTY_TYPES),
    is_required: Type.Optional(Type.Boolean()),
    is_optional_in_types: Type.Optional(Type.Boolean()),
    description: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);
export type SchemaPropertyInput = Static<typeof SchemaPropertyInput>;

const groupFields = {
  description: Type.Optional(Nullable(Type.String())),
  properties: Type.Optional(
    Type.Array(SchemaPropertyInput, {
      description: 'The complete list: on update, properties whose id is missing are deleted, known ids updated, the rest created.',
    }),
  ),
};

export const CreateGroupBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 400 }), ...groupFields }, { additionalProperties: true });
export type CreateGroupBody = Static<typeof CreateGroupBody>;
export const UpdateGroupBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })), ...groupFields }, { additionalProperties: true });
export type UpdateGroupBody = Static<typeof UpdateGroupBody>;

export const SchemaProperty = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  property_type: Type.String(),
  is_required: Type.Boolean(),
  is_optional_in_types: Type.Boolean(),
  description: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const PropertyGroup = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  description: Type.String(),
  properties: Type.Array(SchemaProperty),
  events: Type.Array(Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() })),
  created_at: Timestamp,
  updated_at: Timestamp,
  created_by: Nullable(UserSummary),
});
export type PropertyGroup = Static<typeof PropertyGroup>;
export const PropertyGroupList = paginatedOf(PropertyGroup);

export const EventSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  event_definition: Type.String({ format: 'uuid' }),
  property_group: PropertyGroup,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type EventSchema = Static<typeof EventSchema>;
export const EventSchemaList = paginatedOf(EventSchema);

export const CreateEventSchemaBody = Type.Object(
  {
    event_definition: Type.String({ description: 'event definition id' }),
    property_group: Type.Optional(Type.String({ description: 'property group id' })),
    property_group_id: Type.Optional(Type.String({ description: 'property group id (PostHog frontend spelling)' })),
  },
  { additionalProperties: true },
);
export type CreateEventSchemaBody = Static<typeof CreateEventSchemaBody>;

export const EventSchemaListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  event_definition: Type.Optional(Type.String({ description: 'only the schemas of this event definition' })),
});
export type EventSchemaListQuery = Static<typeof EventSchemaListQuery>;

export const GroupListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
});
