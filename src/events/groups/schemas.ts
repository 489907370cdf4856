import { Type, type Static } from 'typebox';
import { PaginationQuery, paginatedOf } from '../../kernel/http/pagination.ts';

const Timestamp = Type.String({ format: 'date-time' });

export const ProjectParams = Type.Object({
  project_id: Type.String({ description: "The project's integer id, or `@current`." }),
});

const GroupTypeIndex = Type.Integer({ minimum: 0, maximum: 4, description: 'The group type index (0–4), from `groups_types`.' });

export const GroupType = Type.Object({
  group_type: Type.String(),
  group_type_index: Type.Integer(),
  name_singular: Type.Union([Type.String(), Type.Null()]),
  name_plural: Type.Union([Type.String(), Type.Null()]),
});
export type GroupType = Static<typeof GroupType>;

export const GroupTypeList = Type.Array(GroupType);

export const Group = Type.Object({
  group_type_index: Type.Integer(),
  group_key: Type.String(),
  group_properties: Type.Object({}, { additionalProperties: true }),
  created_at: Timestamp,
});
export type Group = Static<typeof Group>;

export const GroupList = paginatedOf(Group);

export const GroupListQuery = Type.Object({
  ...PaginationQuery.properties,
  group_type_index: GroupTypeIndex,
  search: Type.Optional(Type.String({ description: 'Part of the group key or of its `name` property (case-insensitive).' })),
});
export type GroupListQuery = Static<typeof GroupListQuery>;

export const GroupFindQuery = Type.Object({
  group_type_index: GroupTypeIndex,
  group_key: Type.String(),
});
export type GroupFindQuery = Static<typeof GroupFindQuery>;
