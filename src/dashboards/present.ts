import type { ReadHandle } from '../db/pool.ts';
import { isoUtc } from '../kernel/time.ts';
import { dashboardInsights, type DashboardRecord } from './store.ts';
import { computeInsight } from './trends.ts';

export function presentDashboardBasic(dashboard: DashboardRecord) {
  return {
    id: dashboard.id,
    name: dashboard.name,
    description: dashboard.description,
    created_at: isoUtc(dashboard.created_at),
    created_by: dashboard.created_by,
    deleted: dashboard.deleted,
  };
}

/** The dashboard with a tile per insight, each insight's result computed now from the events. */
export async function presentDashboard(db: ReadHandle, dashboard: DashboardRecord, now: Date = new Date()) {
  const tiles = [];
  for (const insight of await dashboardInsights(db, dashboard.id)) {
    tiles.push({
      id: insight.id,
      insight: {
        id: insight.id,
        name: insight.name,
        kind: insight.kind,
        query: insight.query,
        result: await computeInsight(db, dashboard.project_id, insight.query, now),
        last_refresh: isoUtc(now),
        created_at: isoUtc(insight.created_at),
        dashboards: [dashboard.id],
      },
    });
  }
  return { ...presentDashboardBasic(dashboard), tiles };
}
