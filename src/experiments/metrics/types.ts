/** The metric shapes served (PostHog's `ExperimentMetric` of kinds mean, funnel and ratio over events). */

/** An event property condition (`type: "event"`). */
export interface EventPropertyFilter {
  key: string;
  operator: string;
  value: unknown;
}

/** One event source: an event name (null = any event) with property conditions, and how a unit's events aggregate. */
export interface EventSource {
  event: string | null;
  properties: EventPropertyFilter[];
  /** total: count of events; sum/avg/min/max of `math_property` (missing or non-numeric → 0). */
  math: 'total' | 'sum' | 'avg' | 'min' | 'max';
  math_property: string | null;
}

export interface MetricWindow {
  /** null: no conversion window (until the experiment ends). */
  windowMs: number | null;
}

export interface MeanMetric extends MetricWindow {
  uuid: string;
  metric_type: 'mean';
  source: EventSource;
  lower_bound_percentile: number | null;
  upper_bound_percentile: number | null;
  ignore_zeros: boolean;
}

export interface FunnelMetric extends MetricWindow {
  uuid: string;
  metric_type: 'funnel';
  series: EventSource[];
}

export interface RatioMetric extends MetricWindow {
  uuid: string;
  metric_type: 'ratio';
  numerator: EventSource;
  denominator: EventSource;
}

export type ParsedMetric = MeanMetric | FunnelMetric | RatioMetric;
