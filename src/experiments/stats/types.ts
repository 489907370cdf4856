/** Sufficient statistics of one variant, as the metric query returns them. */
export interface VariantStats {
  key: string;
  number_of_samples: number;
  sum: number;
  sum_squares: number;
  /** funnel: units reaching at least step 1, …, at least step N */
  step_counts?: number[];
  /** ratio: denominator totals and the cross product Σ numerator·denominator over units */
  denominator_sum?: number;
  denominator_sum_squares?: number;
  numerator_denominator_sum_product?: number;
}

export type MetricType = 'mean' | 'funnel' | 'ratio';

export type ValidationFailure = 'not-enough-exposures' | 'not-enough-metric-data' | 'baseline-mean-is-zero';

export interface BaselineResult extends VariantStats {
  validation_failures: ValidationFailure[];
}

export interface BayesianVariantResult extends VariantStats {
  method: 'bayesian';
  validation_failures: ValidationFailure[];
  /** absent when a validation failure (of this variant or the baseline) stopped the computation */
  chance_to_win?: number;
  credible_interval?: [number, number];
  significant?: boolean;
}

export interface FrequentistVariantResult extends VariantStats {
  method: 'frequentist';
  validation_failures: ValidationFailure[];
  p_value?: number;
  confidence_interval?: [number, number];
  significant?: boolean;
}

export type VariantResult = BayesianVariantResult | FrequentistVariantResult;

export interface ExperimentMetricResult {
  baseline: BaselineResult;
  variant_results: VariantResult[];
}
