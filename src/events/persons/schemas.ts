import { Type, type Static } from 'typebox';
import { PaginationQuery, paginatedOf } from '../../kernel/http/pagination.ts';

const Timestamp = Type.String({ format: 'date-time' });
const FreeObject = Type.Object({}, { additionalProperties: true });

export const ProjectParams = Type.Object({
  project_id: Type.String({ description: "The project's integer id, or `@current`." }),
});

export const PersonParams = Type.Object({
  project_id: Type.String({ description: "The project's integer id, or `@current`." }),
  id: Type.String({ description: "The person's uuid (or, for older clients, its integer id)." }),
});
export type PersonParams = Static<typeof PersonParams>;

export const PersonListQuery = Type.Object({
  ...PaginationQuery.properties,
  distinct_id: Type.Optional(Type.String({ description: 'Only the person with this distinct id (exact).' })),
  email: Type.Optional(Type.String({ description: 'Only persons whose `email` property is exactly this.' })),
  search: Type.Optional(
    Type.String({ description: 'A distinct id (exact) or part of the `email` or `name` property (case-insensitive); a uuid also matches the person.' }),
  ),
  properties: Type.Optional(
    Type.String({
      description:
        'A JSON list of person property filters `{"key","value","operator","type":"person"}` (all must match), or a group ' +
        '`{"type":"AND"|"OR","values":[...]}`. Operators: exact (default; a list value matches any), is_not, icontains, ' +
        'not_icontains, is_set, is_not_set, gt, gte, lt, lte.',
    }),
  ),
});
export type PersonListQuery = Static<typeof PersonListQuery>;

export const Person = Type.Object({
  id: Type.String({ format: 'uuid', description: "The person's uuid (PostHog's newer API answers the uuid here)." }),
  uuid: Type.String({ format: 'uuid' }),
  name: Type.String({ description: 'The `email` (or `name`, `username`) property, else the first distinct id.' }),
  distinct_ids: Type.Array(Type.String(), { description: 'In the order they were attached to the person.' }),
  properties: FreeObject,
  is_identified: Type.Boolean(),
  created_at: Timestamp,
  last_seen_at: Type.Union([Timestamp, Type.Null()], { description: 'The time of its newest event (any of its distinct ids), exact; null without events.' }),
});
export type Person = Static<typeof Person>;

export const PersonList = paginatedOf(Person);
