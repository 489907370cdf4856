/**
 * An activity entry as the activity routes answer it: the one description of its shape, typing the
 * store (`Static`) and, through the OpenAPI document's `ActivityLog` component, the console.
 */
import { Type, type Static } from 'typebox';
import { named, Nullable } from '../../kernel/http/shapes.ts';
import { UserSummary } from '../users/user-summary.ts';

export const ActivityChange = Type.Object({
  type: Type.String({ description: 'the kind of item: FeatureFlag, Survey, Cohort…' }),
  action: Type.Union([Type.Literal('changed'), Type.Literal('created'), Type.Literal('deleted')]),
  field: Type.String(),
  before: Type.Unknown(),
  after: Type.Unknown(),
});
export type ActivityChange = Static<typeof ActivityChange>;

export const ActivityDetail = Type.Object({
  changes: Nullable(Type.Array(ActivityChange)),
  trigger: Type.Unknown(),
  type: Nullable(Type.String()),
  name: Nullable(Type.String()),
  short_id: Nullable(Type.String()),
});
export type ActivityDetail = Static<typeof ActivityDetail>;

/** The author of an entry no person made (a job, a scheduled change). */
export const SystemUser = Type.Object({ first_name: Type.Literal('System'), email: Type.Null(), is_system: Type.Literal(true) });

export const ActivityUser = Type.Union([UserSummary, SystemUser]);
export type ActivityUser = Static<typeof ActivityUser>;

export const ActivityEntry = named(
  'ActivityLog',
  Type.Object({
    id: Type.String(),
    user: ActivityUser,
    activity: Type.String({ description: 'created, updated, deleted…' }),
    scope: Type.String(),
    item_id: Type.String(),
    detail: ActivityDetail,
    created_at: Type.String(),
    is_system: Type.Boolean(),
  }),
);
export type ActivityEntry = Static<typeof ActivityEntry>;
