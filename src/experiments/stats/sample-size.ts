// Sample size for a two-sided test comparing one variant with the baseline:
//   n per variant = (z_{1−α/2} + z_{power})² · (σ²_baseline + σ²_variant) / δ²
// with δ = MDE · baseline value. Funnels: σ² = p(1 − p), the variant at p·(1 + MDE); means: the
// same variance in both groups.
import { normalQuantile } from './distributions.ts';
import { DEFAULT_ALPHA } from './config.ts';
import { StatisticsError } from './errors.ts';

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

export interface RunningTimeInput extends SampleSizeInput {
  /** number of variants including the baseline */
  variant_count: number;
  /** units newly exposed per day across all variants */
  exposures_per_day: number;
}

export const DEFAULT_POWER = 0.8;

function probability(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0 && value < 1)) throw new StatisticsError(`${what} must be between 0 and 1`);
  return value;
}

function zSum(alpha: number | undefined, power: number | undefined): number {
  return normalQuantile(1 - probability(alpha, DEFAULT_ALPHA, 'alpha') / 2) + normalQuantile(probability(power, DEFAULT_POWER, 'power'));
}

function baselineVariance(input: Omit<SampleSizeInput, 'minimum_detectable_effect'>): number {
  const value = input.baseline_value;
  if (!Number.isFinite(value)) throw new StatisticsError('baseline_value must be a number');
  if (input.metric === 'funnel') {
    if (!(value > 0 && value < 1)) throw new StatisticsError('a conversion rate must be between 0 and 1');
    return value * (1 - value);
  }
  if (value === 0) throw new StatisticsError('a relative effect needs a non-zero baseline');
  const variance = input.baseline_variance;
  if (variance === undefined || !(variance > 0) || !Number.isFinite(variance)) {
    throw new StatisticsError('baseline_variance must be a positive number');
  }
  return variance;
}

function variantVariance(input: Omit<SampleSizeInput, 'minimum_detectable_effect'>, effect: number): number {
  if (input.metric !== 'funnel') return baselineVariance(input);
  const p = input.baseline_value * (1 + effect);
  if (!(p > 0 && p < 1)) throw new StatisticsError('the effect takes the conversion rate outside 0–100 %');
  return p * (1 - p);
}

function unitsNeeded(input: SampleSizeInput): number {
  const effect = input.minimum_detectable_effect;
  if (!Number.isFinite(effect) || effect === 0) throw new StatisticsError('minimum_detectable_effect must be a non-zero number');
  const delta = effect * input.baseline_value;
  return (zSum(input.alpha, input.power) ** 2 * (baselineVariance(input) + variantVariance(input, effect))) / delta ** 2;
}

/** Units needed in each variant (baseline and every test variant) to detect the effect. */
export function sampleSizePerVariant(input: SampleSizeInput): number {
  return Math.ceil(unitsNeeded(input));
}

/** Days until every variant has its sample size at the given daily exposure rate. */
export function estimatedRunningDays(input: RunningTimeInput): number {
  if (!Number.isInteger(input.variant_count) || input.variant_count < 2) throw new StatisticsError('variant_count must be at least 2');
  if (!(input.exposures_per_day > 0) || !Number.isFinite(input.exposures_per_day)) {
    throw new StatisticsError('exposures_per_day must be positive');
  }
  return Math.ceil((sampleSizePerVariant(input) * input.variant_count) / input.exposures_per_day);
}

/**
 * The smallest relative increase detectable with `samples_per_variant` units in each variant.
 * Means have a closed form; funnels (whose variance moves with the effect) are solved by bisection.
 */
export function minimumDetectableEffect(
  input: Omit<SampleSizeInput, 'minimum_detectable_effect'> & { samples_per_variant: number },
): number {
  const n = input.samples_per_variant;
  if (!(n >= 2) || !Number.isFinite(n)) throw new StatisticsError('samples_per_variant must be at least 2');
  const z = zSum(input.alpha, input.power);
  const variance = baselineVariance(input);
  if (input.metric !== 'funnel') return (z * Math.sqrt((2 * variance) / n)) / Math.abs(input.baseline_value);
  let lo = 0;
  let hi = (1 - input.baseline_value) / input.baseline_value;
  const needed = (effect: number) => unitsNeeded({ ...input, minimum_detectable_effect: effect });
  // Beyond the largest possible effect nothing is detectable with n: report that bound.
  if (needed(hi * (1 - 1e-9)) > n) return hi;
  for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
    const mid = (lo + hi) / 2;
    if (needed(mid) > n) lo = mid;
    else hi = mid;
  }
  return hi;
}
