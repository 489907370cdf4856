/**
 * The insights Bellwether generates are trends: per series (an event, counted as `total` events or
 * `dau`, unique users per day) and per breakdown value, one number per UTC day over a window
 * ending today. The query is stored in PostHog's shape (`InsightVizNode` around a `TrendsQuery`);
 * only what this module reads is supported, and results are computed from `events` on every read.
 */
import type { ReadHandle } from '../db/pool.ts';
import { DAY_MS } from '../kernel/time.ts';
import type { TrendsMath, TrendsSeriesResult } from './schemas.ts';
import { trendRows } from './store.ts';

export interface EventsNode {
  kind: 'EventsNode';
  event: string;
  name: string;
  custom_name?: string;
  math: TrendsMath;
}

export interface EventPropertyFilter {
  type: 'event';
  key: string;
  value: string | string[];
  operator: 'exact';
}

export interface TrendsQuery {
  kind: 'TrendsQuery';
  series: EventsNode[];
  properties: EventPropertyFilter[];
  breakdownFilter: { breakdown: string; breakdown_type: 'event' } | null;
  interval: 'day';
  dateRange: { date_from: string; date_to: null };
}

export interface InsightQuery {
  kind: 'InsightVizNode';
  source: TrendsQuery;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function trendsQuery(input: {
  series: Array<{ event: string; math: TrendsMath; custom_name?: string }>;
  properties: Array<{ key: string; value: string }>;
  breakdown: string | null;
  days: number;
}): InsightQuery {
  return {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery',
      series: input.series.map((s) => ({ kind: 'EventsNode', event: s.event, name: s.event, math: s.math, ...(s.custom_name ? { custom_name: s.custom_name } : {}) })),
      properties: input.properties.map((p) => ({ type: 'event', key: p.key, value: p.value, operator: 'exact' })),
      breakdownFilter: input.breakdown === null ? null : { breakdown: input.breakdown, breakdown_type: 'event' },
      interval: 'day',
      dateRange: { date_from: `-${input.days}d`, date_to: null },
    },
  };
}

/** The UTC days of the window, oldest first: `-30d` is the 30 days before today, and today. */
export function windowDays(dateFrom: string, now: Date): string[] {
  const match = /^-(\d{1,4})d$/.exec(dateFrom);
  const back = match ? Number(match[1]) : 30;
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const days: string[] = [];
  for (let i = back; i >= 0; i--) days.push(new Date(today - i * DAY_MS).toISOString().slice(0, 10));
  return days;
}

function dayLabel(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return `${d}-${MONTHS[m - 1]}-${y}`;
}

function isTrendsQuery(query: unknown): query is InsightQuery {
  const source = (query as InsightQuery | null)?.source;
  return (
    typeof source === 'object' &&
    source !== null &&
    source.kind === 'TrendsQuery' &&
    Array.isArray(source.series) &&
    Array.isArray(source.properties)
  );
}

/** The insight's result now; null for a query this module cannot compute. */
export async function computeInsight(db: ReadHandle, projectId: number, query: unknown, now: Date): Promise<TrendsSeriesResult[] | null> {
  if (!isTrendsQuery(query)) return null;
  const source = query.source;
  const days = windowDays(source.dateRange?.date_from ?? '-30d', now);
  const from = new Date(`${days[0]}T00:00:00Z`);
  const to = new Date(new Date(`${days[days.length - 1]}T00:00:00Z`).getTime() + DAY_MS);
  const breakdown = source.breakdownFilter?.breakdown ?? null;
  const position = new Map(days.map((day, i) => [day, i]));
  const results: TrendsSeriesResult[] = [];

  for (const [order, series] of source.series.entries()) {
    const rows = await trendRows(db, {
      projectId,
      event: series.event,
      math: series.math === 'dau' ? 'dau' : 'total',
      properties: source.properties.map((p) => ({ key: p.key, values: Array.isArray(p.value) ? p.value.map(String) : [String(p.value)] })),
      breakdown,
      from,
      to,
    });
    const byValue = new Map<string | null, number[]>();
    if (breakdown === null) byValue.set(null, days.map(() => 0));
    for (const row of rows) {
      let data = byValue.get(row.breakdown);
      if (!data) byValue.set(row.breakdown, (data = days.map(() => 0)));
      const at = position.get(row.day);
      if (at !== undefined) data[at] += row.value;
    }
    const seriesName = series.custom_name ?? series.name ?? series.event;
    const entries = [...byValue.entries()].map(([value, data]) => ({ value, data, count: data.reduce((a, b) => a + b, 0) }));
    entries.sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
    for (const { value, data, count } of entries) {
      const breakdownLabel = value ?? 'None';
      results.push({
        action: { id: series.event, type: 'events', name: series.event, custom_name: series.custom_name ?? null, math: series.math, order },
        label: breakdown === null ? seriesName : source.series.length > 1 ? `${seriesName} - ${breakdownLabel}` : breakdownLabel,
        breakdown_value: value,
        count,
        data,
        days,
        labels: days.map(dayLabel),
      });
    }
  }
  return results;
}
