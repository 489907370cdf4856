import { Type } from 'typebox';
import { paginatedOf } from '../kernel/http/pagination.ts';
import { UserSummary } from '../accounts/users/user-summary.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

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

export const Insight = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  kind: Type.String({ description: 'TrendsQuery' }),
  query: Type.Unknown({ description: "PostHog's InsightVizNode around a TrendsQuery" }),
  result: Type.Unknown({ description: 'per series and breakdown value: data per UTC day, days, labels, count; null when not computable' }),
  last_refresh: Type.String(),
  created_at: Type.String(),
  dashboards: Type.Array(Type.Integer()),
});

export const DashboardResponse = Type.Object({
  ...dashboardFields,
  tiles: Type.Array(Type.Object({ id: Type.Integer(), insight: Insight })),
});

export const DashboardListResponse = paginatedOf(DashboardBasic);
