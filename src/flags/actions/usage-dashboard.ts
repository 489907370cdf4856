/**
 * `POST {id}/dashboard` and `POST {id}/enrich_usage_dashboard`: the flag's usage dashboard
 * (`Generated Dashboard: {key} Usage`), created when missing, with its insights upserted by name,
 * so both actions are idempotent. Results are computed from the events when the dashboard is read.
 *
 * - Usage insights, from `$feature_flag_called` events of the flag over the last 30 days, per UTC
 *   day and per `$feature_flag_response` (the value the flag took): calls, and unique users.
 * - Enriched insights (`has_enriched_analytics`), from the `$feature_view` and
 *   `$feature_interaction` events posthog-js's feature components send (`feature_flag` = key), per
 *   `feature_flag_variant`: events and unique users.
 */
import type { WriteTx } from '../../db/unit-of-work.ts';
import { findDashboard, insertDashboard, upsertInsight } from '../../dashboards/store.ts';
import { trendsQuery, type InsightQuery } from '../../dashboards/trends.ts';
import { ApiError, orNotFound, RawErrorResponse } from '../../kernel/errors.ts';
import type { UserSummary } from '../../accounts/users/user-summary.ts';
import type { FlagRecord } from '../record.ts';
import { findFlag } from '../store.ts';
import type { FlagWriteDeps } from '../write-deps.ts';
import { commitFlagWrite } from '../writer.ts';
import { setUsageDashboard } from './store.ts';

const WINDOW_DAYS = 30;

export interface InsightDraft {
  name: string;
  kind: 'TrendsQuery';
  query: InsightQuery;
}

export const USAGE_INSIGHT_NAMES = {
  calls: 'Feature Flag Called Total Volume',
  users: 'Feature Flag calls made by unique users per variant',
  views: 'Feature Viewed Total Volume',
  interactions: 'Feature Interaction Total Volume',
} as const;

export function usageInsights(flagKey: string): InsightDraft[] {
  const called = (math: 'total' | 'dau', customName: string) =>
    trendsQuery({
      series: [{ event: '$feature_flag_called', math, custom_name: customName }],
      properties: [{ key: '$feature_flag', value: flagKey }],
      breakdown: '$feature_flag_response',
      days: WINDOW_DAYS,
    });
  return [
    { name: USAGE_INSIGHT_NAMES.calls, kind: 'TrendsQuery', query: called('total', 'Calls') },
    { name: USAGE_INSIGHT_NAMES.users, kind: 'TrendsQuery', query: called('dau', 'Unique users') },
  ];
}

export function enrichedInsights(flagKey: string): InsightDraft[] {
  const featureEvent = (event: string) =>
    trendsQuery({
      series: [
        { event, math: 'total', custom_name: 'Events' },
        { event, math: 'dau', custom_name: 'Unique users' },
      ],
      properties: [{ key: 'feature_flag', value: flagKey }],
      breakdown: 'feature_flag_variant',
      days: WINDOW_DAYS,
    });
  return [
    { name: USAGE_INSIGHT_NAMES.views, kind: 'TrendsQuery', query: featureEvent('$feature_view') },
    { name: USAGE_INSIGHT_NAMES.interactions, kind: 'TrendsQuery', query: featureEvent('$feature_interaction') },
  ];
}

const failure = (error: string) => new RawErrorResponse(400, { success: false, error });

/** The flag's live usage dashboard, created (and linked to the flag) when it is missing. */
async function usageDashboardOf(db: WriteTx, flag: FlagRecord, userId: number): Promise<{ id: number; created: boolean }> {
  if (flag.usage_dashboard_id !== null && (await findDashboard(db, flag.project_id, flag.usage_dashboard_id))) {
    return { id: flag.usage_dashboard_id, created: false };
  }
  const id = await insertDashboard(db, flag.project_id, `Generated Dashboard: ${flag.key} Usage`, userId);
  await setUsageDashboard(db, flag.id, id);
  return { id, created: true };
}

export interface UsageDashboardRequest {
  projectId: number;
  flagId: number;
  actor: UserSummary;
  /** `enrich_usage_dashboard`: the enriched insights are the point, so the flag must have them. */
  enrich: boolean;
  log: { error(obj: object, msg: string): void };
}

/** Ensures the usage dashboard and its insights (plus the enriched ones when the flag has them). */
export async function ensureUsageDashboard(deps: FlagWriteDeps, request: UsageDashboardRequest): Promise<void> {
  const { projectId, flagId, enrich } = request;
  try {
    await deps.units.run(async (unit) => {
      const db = unit.client;
      // The row lock serialises two calls for the same flag: one dashboard, not two.
      const flag = orNotFound(await findFlag(db, projectId, flagId, true));
      if (enrich && flag.has_enriched_analytics !== true) throw failure('No enriched analytics available for this feature flag');
      const dashboard = await usageDashboardOf(db, flag, request.actor.id);
      const drafts = [...usageInsights(flag.key), ...(flag.has_enriched_analytics === true ? enrichedInsights(flag.key) : [])];
      for (const draft of drafts) await upsertInsight(db, projectId, dashboard.id, draft);
      if (dashboard.created) {
        const relinked = await findFlag(db, projectId, flagId);
        if (relinked) await commitFlagWrite(deps, unit, { before: flag, after: relinked, actorId: request.actor.id, versioned: false });
      }
    }, { retry: true });
  } catch (error) {
    if (error instanceof ApiError || error instanceof RawErrorResponse) throw error;
    request.log.error({ err: error }, `usage dashboard of flag ${flagId} failed`);
    throw failure(enrich ? 'Unable to enrich usage dashboard' : 'Unable to generate usage dashboard');
  }
}
