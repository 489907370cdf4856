/** Experiments as the API answers them (PostHog's shapes). */
import type { FeatureFlag, UserSummary } from '../api/types.ts';
export type {
  BaselineResult,
  BayesianVariantResult,
  ExperimentMetricResult,
  FrequentistVariantResult,
  VariantResult,
  ValidationFailure,
} from '../../../src/experiments/stats/types.ts';
import type { ExperimentMetricResult } from '../../../src/experiments/stats/types.ts';

export interface PropertyFilter {
  key: string;
  operator: string;
  value: string | number | string[] | null;
  type: 'event';
}

export interface EventsNode {
  kind: 'EventsNode';
  event: string | null;
  math?: 'total' | 'sum' | 'avg' | 'min' | 'max';
  math_property?: string | null;
  properties?: PropertyFilter[];
}

export type MetricType = 'mean' | 'funnel' | 'ratio';

export interface ExperimentMetric {
  kind: 'ExperimentMetric';
  uuid?: string;
  name?: string;
  metric_type: MetricType;
  goal?: 'increase' | 'decrease';
  source?: EventsNode;
  series?: EventsNode[];
  numerator?: EventsNode;
  denominator?: EventsNode;
  conversion_window?: number | null;
  conversion_window_unit?: string;
}

export interface ExperimentVariant {
  key: string;
  name?: string;
  rollout_percentage: number;
}

export interface Experiment {
  id: number;
  name: string;
  description: string | null;
  start_date: string | null;
  end_date: string | null;
  feature_flag_key: string;
  feature_flag: (Pick<FeatureFlag, 'id' | 'key' | 'name' | 'active' | 'deleted' | 'filters'> & Record<string, unknown>) | null;
  parameters: { feature_flag_variants?: ExperimentVariant[]; minimum_detectable_effect?: number; recommended_sample_size?: number } & Record<string, unknown>;
  archived: boolean;
  created_by: UserSummary | null;
  created_at: string;
  updated_at: string;
  metrics: ExperimentMetric[];
  metrics_secondary: ExperimentMetric[];
  stats_config: { method?: string } & Record<string, unknown> | null;
  conclusion: string | null;
  conclusion_comment: string | null;
  status: 'draft' | 'running' | 'stopped';
  excluded_variants: string[];
}

/** One metric's answer from `POST /query/` `{kind: "ExperimentQuery"}`. */
export interface MetricResult extends ExperimentMetricResult {
  kind: 'ExperimentQuery';
}

export interface ExposureResult {
  kind: 'ExperimentExposureQuery';
  date_range: { date_from: string | null; date_to: string | null };
  timeseries: Array<{ variant: string; days: string[]; exposure_counts: number[] }>;
  total_exposures: Record<string, number>;
  sample_ratio_mismatch: { expected: Record<string, number>; p_value: number } | null;
}
