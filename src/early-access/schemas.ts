import { Type, type Static } from 'typebox';
import { UserSummary } from '../accounts/users/user-summary.ts';
import { paginatedOf, PaginationQuery } from '../kernel/http/pagination.ts';
import { Nullable } from '../kernel/http/shapes.ts';
import { STAGES } from './record.ts';

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const FeatureParams = Type.Object({ project_id: Type.String(), id: Type.String() });
export const FeatureListQuery = PaginationQuery;

const StageEnum = Type.Enum([...STAGES]);

/** Values are checked in write.ts with PostHog's messages; the schema only bounds them. */
export const FeatureWriteBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 10_000 })),
    description: Type.Optional(Type.String({ maxLength: 100_000 })),
    stage: Type.Optional(Type.String({ maxLength: 100, description: STAGES.join(', ') })),
    documentation_url: Type.Optional(Type.String({ maxLength: 10_000 })),
    payload: Type.Optional(Type.Unknown({ description: 'any JSON object; falsy = {}' })),
    feature_flag_id: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2147483647 }))),
    rollout_to_all: Type.Optional(Type.Boolean({ description: 'with stage general-availability: the flag serves everyone' })),
    _create_in_folder: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);
export type FeatureWriteBody = Static<typeof FeatureWriteBody>;

export const MinimalFlag = Type.Object({
  id: Type.Integer(),
  team_id: Type.Integer(),
  name: Type.String(),
  key: Type.String(),
  filters: Type.Record(Type.String(), Type.Unknown()),
  deleted: Type.Boolean(),
  active: Type.Boolean(),
  ensure_experience_continuity: Nullable(Type.Boolean()),
});

export const Feature = Type.Object({
  id: Type.String(),
  feature_flag: Nullable(MinimalFlag),
  name: Type.String(),
  description: Type.String(),
  stage: StageEnum,
  documentation_url: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  created_by: Nullable(UserSummary),
  created_at: Type.String(),
});

export const FeatureList = paginatedOf(Feature);

export const PublicQuery = Type.Object(
  {
    token: Type.Optional(Type.String({ description: 'The project token (phc_…). Required.' })),
    stage: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 10 })], { description: 'repeatable; default beta' })),
  },
  { additionalProperties: true },
);

export const PublicFeature = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  stage: Type.String(),
  documentationUrl: Type.String(),
  flagKey: Nullable(Type.String()),
  payload: Type.Record(Type.String(), Type.Unknown()),
  assignee: Type.Null(),
});
export const PublicResponse = Type.Object({ earlyAccessFeatures: Type.Array(PublicFeature) });

export const EnrolledResponse = Type.Object({ results: Type.Array(Type.Object({ id: Type.String(), distinct_id: Nullable(Type.String()) })) });
