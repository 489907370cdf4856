import { Type, type Static } from 'typebox';
import { paginatedOf } from '../kernel/http/pagination.ts';
import { documentedAs, named, Nullable } from '../kernel/http/shapes.ts';
import { UserSummary } from '../accounts/users/user-summary.ts';

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const DashboardParams = Type.Object({ project_id: Type.String(), id: Type.String() });

export const DashboardListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
});

const dashboardFields = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  created_at: Type.String(),
  created_by: Nullable(UserSummary),
  deleted: Type.Boolean(),
};

export const DashboardBasic = Type.Object(dashboardFields);

export const TrendsMath = Type.Union([Type.Literal('total'), Type.Literal('dau')], { description: 'total: events; dau: unique users per day' });
export type TrendsMath = Static<typeof TrendsMath>;

/** One series of a trends insight for one breakdown value: a number per UTC day. */
export const TrendsSeries = named(
  'TrendsSeries',
  Type.Object({
    action: Type.Object({
      id: Type.String(),
      type: Type.Literal('events'),
      name: Type.String(),
      custom_name: Nullable(Type.String()),
      math: TrendsMath,
      order: Type.Integer(),
    }),
    label: Type.String(),
    breakdown_value: Nullable(Type.String()),
    count: Type.Number(),
    data: Type.Array(Type.Number()),
    days: Type.Array(Type.String()),
    labels: Type.Array(Type.String()),
  }),
);
export type TrendsSeriesResult = Static<typeof TrendsSeries>;

export const Insight = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  kind: Type.String({ description: 'TrendsQuery' }),
  query: Type.Unknown({ description: "PostHog's InsightVizNode around a TrendsQuery" }),
  result: documentedAs(
    Nullable(Type.Array(TrendsSeries), { description: 'per series and breakdown value: data per UTC day, days, labels, count; null when not computable' }),
    Type.Unknown(),
  ),
  last_refresh: Type.String(),
  created_at: Type.String(),
  dashboards: Type.Array(Type.Integer()),
});

export const DashboardResponse = Type.Object({
  ...dashboardFields,
  tiles: Type.Array(Type.Object({ id: Type.Integer(), insight: Insight })),
});

export const DashboardListResponse = paginatedOf(DashboardBasic);
