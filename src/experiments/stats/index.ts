// Experiment statistics: pure functions over per-variant sufficient statistics. No I/O, no
// imports from the rest of the service, so the query layer and tests can call them directly.

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

/**
 * Thrown when the numbers cannot be analysed although validation passed (zero variance, a
 * non-positive baseline mean for a relative Bayesian difference, impossible sums…). The query
 * layer answers it with a 400 "Unable to calculate experiment statistics…".
 */
export class StatisticsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatisticsError';
  }
}

/**
 * Compares every variant with the baseline. `statsConfig` is the experiment's stored
 * `stats_config` (any JSON; unknown or invalid parts fall back to the defaults).
 */
export function analyzeMetric(
  type: MetricType,
  baseline: VariantStats,
  variants: VariantStats[],
  statsConfig: unknown,
): ExperimentMetricResult {
  void type;
  void baseline;
  void variants;
  void statsConfig;
  throw new StatisticsError('not implemented yet');
}

export interface SampleRatioMismatch {
  /** expected exposures per variant, scaled to the observed total */
  expected: Record<string, number>;
  p_value: number;
  /** p < 0.001: units are not split across variants as configured */
  mismatch: boolean;
}

/**
 * Pearson chi-square goodness of fit of the observed exposures against the configured split.
 * Variants with a share of 0 are left out; null when fewer than two variants remain or fewer than
 * 100 units were exposed (too little to judge).
 */
export function sampleRatioMismatch(
  exposures: Record<string, number>,
  expectedPercent: Record<string, number>,
): SampleRatioMismatch | null {
  void exposures;
  void expectedPercent;
  throw new StatisticsError('not implemented yet');
}

export interface SampleSizeInput {
  /** 'funnel': baseline_value is a conversion rate in (0, 1); 'mean': a mean with its variance */
  metric: 'funnel' | 'mean';
  baseline_value: number;
  /** per-unit variance of a mean metric (ignored for funnels: p(1 − p)) */
  baseline_variance?: number;
  /** smallest relative change worth detecting, as a fraction (0.05 = 5 %) */
  minimum_detectable_effect: number;
  /** two-sided significance level, default 0.05 */
  alpha?: number;
  /** probability of detecting the effect when it is there, default 0.8 */
  power?: number;
}

/** Units needed in each variant (baseline and every test variant) to detect the effect. */
export function sampleSizePerVariant(input: SampleSizeInput): number {
  void input;
  throw new StatisticsError('not implemented yet');
}

export interface RunningTimeInput extends SampleSizeInput {
  /** number of variants including the baseline */
  variant_count: number;
  /** units newly exposed per day across all variants */
  exposures_per_day: number;
}

/** Days until every variant has its sample size at the given daily exposure rate. */
export function estimatedRunningDays(input: RunningTimeInput): number {
  void input;
  throw new StatisticsError('not implemented yet');
}

/** The smallest relative effect detectable with `samplesPerVariant` units in each variant. */
export function minimumDetectableEffect(
  input: Omit<SampleSizeInput, 'minimum_detectable_effect'> & { samples_per_variant: number },
): number {
  void input;
  throw new StatisticsError('not implemented yet');
}
