import { Type, type Static } from 'typebox';
import { paginatedOf } from '../kernel/http/pagination.ts';
import { UserSummary } from '../accounts/users/user-summary.ts';
import { documentedAs } from '../kernel/http/shapes.ts';
import { CohortFilters } from './filter-shapes.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const FreeObject = Type.Object({}, { additionalProperties: true });

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const CohortParams = Type.Object({ project_id: Type.String(), id: Type.String() });

const FILTERS_DESCRIPTION =
  '{"properties": {"type": "AND"|"OR", "values": [group | property]}}; properties are person properties ' +
  '({type: "person", key, operator, value, negation?}), other cohorts ({type: "cohort", key: "id", value: <id>, negation?}) ' +
  'or filters on events ({type: "behavioral", ...}; stored, but such cohorts cannot be used in feature flags).';

/** The writable fields of a cohort (PostHog's serializer), on create and update. */
export const CohortWriteBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    // Any value here: filters.ts checks it, with PostHog's messages.
    filters: Type.Optional(documentedAs(Type.Union([CohortFilters, Type.Null()], { description: FILTERS_DESCRIPTION }))),
    is_static: Type.Optional(Type.Boolean()),
    deleted: Type.Optional(Type.Boolean({ description: 'PATCH only: true soft-deletes, false restores' })),
    groups: Type.Optional(Type.Unknown({ description: 'legacy criteria: only an empty list is accepted; use filters' })),
    query: Type.Optional(Type.Unknown({ description: 'not supported: only null is accepted' })),
    _create_static_person_ids: Type.Optional(
      Type.Array(Type.String(), { maxItems: 10_000, description: 'create only: person UUIDs that make up a static cohort' }),
    ),
    _create_in_folder: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);
export type CohortWriteBody = Static<typeof CohortWriteBody>;

export const CohortResponse = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  groups: Type.Array(FreeObject),
  deleted: Type.Boolean(),
  filters: documentedAs(Nullable(CohortFilters), Nullable(FreeObject)),
  query: Type.Null(),
  version: Type.Integer(),
  pending_version: Type.Null(),
  is_calculating: Type.Boolean(),
  created_by: Nullable(UserSummary),
  created_at: Type.String(),
  last_calculation: Nullable(Type.String()),
  errors_calculating: Type.Integer(),
  last_error_message: Nullable(Type.String()),
  count: Nullable(Type.Integer()),
  is_static: Type.Boolean(),
  cohort_type: Type.String({ description: 'static, person_property or behavioral' }),
  experiment_set: Type.Array(Type.Integer()),
});
export type CohortResponse = Static<typeof CohortResponse>;

export const CohortListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'case-insensitive part of the name' })),
  hide_behavioral_cohorts: Type.Optional(Type.Boolean({ description: 'leave out cohorts that filter on events' })),
});
export type CohortListQuery = Static<typeof CohortListQuery>;

export const CohortListResponse = paginatedOf(CohortResponse);

export const AddPersonsBody = Type.Object(
  {
    person_ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }), { description: 'person UUIDs (PostHog)' })),
    distinct_ids: Type.Optional(Type.Array(Type.String(), { description: 'or distinct ids of the persons' })),
  },
  { additionalProperties: true },
);
export type AddPersonsBody = Static<typeof AddPersonsBody>;

export const RemovePersonBody = Type.Object(
  {
    person_id: Type.Optional(Type.String({ format: 'uuid', description: 'the person UUID (PostHog)' })),
    distinct_id: Type.Optional(Type.String({ description: 'or one of the person’s distinct ids' })),
  },
  { additionalProperties: true },
);
export type RemovePersonBody = Static<typeof RemovePersonBody>;

export const SuccessResponse = Type.Object({ success: Type.Boolean() });

export const CohortPerson = Type.Object({
  id: Type.String(),
  uuid: Type.String(),
  type: Type.Literal('person'),
  name: Type.String(),
  distinct_ids: Type.Array(Type.String()),
  properties: FreeObject,
  created_at: Type.String(),
  last_seen_at: Type.Null(),
  is_identified: Type.Boolean(),
  matched_recordings: Type.Array(FreeObject),
  value_at_data_point: Type.Null(),
});
export type CohortPerson = Static<typeof CohortPerson>;

export const CohortPersonsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
});

export const CohortPersonsResponse = Type.Object({
  results: Type.Array(CohortPerson),
  next: Nullable(Type.String()),
  previous: Nullable(Type.String()),
});
