// From a variant's sufficient statistics to its point value and per-unit variance.
import { StatisticsError } from './errors.ts';
import type { MetricType, VariantStats } from './types.ts';

export interface Moments {
  n: number;
  /** mean, conversion rate or ratio */
  value: number;
  /** per-unit variance of that value (sample form for means and ratios, p(1 − p) for proportions) */
  variance: number;
}

const MAX_ABS_SUM = 1e15;
const MAX_SUM_SQUARES = 1e30;
// Σx² − (Σx)²/n can come out a hair below zero from rounding when every value is equal.
const ROUNDING = 1e-9;

function finite(value: number | undefined, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new StatisticsError(`${what} must be a finite number`);
  return value;
}

function sampleCount(stats: VariantStats): number {
  const n = finite(stats.number_of_samples, 'number_of_samples');
  if (n <= 0 || !Number.isInteger(n)) throw new StatisticsError('number_of_samples must be a positive integer');
  return n;
}

/** Sample variance from n, Σx, Σx² (0 for a single unit). */
function sampleVariance(n: number, sum: number, sumSquares: number, what: string): number {
  if (Math.abs(sum) > MAX_ABS_SUM || sumSquares > MAX_SUM_SQUARES) throw new StatisticsError(`${what} is too large`);
  const spread = sumSquares - (sum * sum) / n;
  if (spread < -ROUNDING * Math.max(1, sumSquares)) throw new StatisticsError(`${what}: sum of squares is below the square of the sum`);
  return n > 1 ? Math.max(0, spread) / (n - 1) : 0;
}

function meanMoments(stats: VariantStats): Moments {
  const n = sampleCount(stats);
  const sum = finite(stats.sum, 'sum');
  const sumSquares = finite(stats.sum_squares, 'sum_squares');
  return { n, value: sum / n, variance: sampleVariance(n, sum, sumSquares, 'metric') };
}

function proportionMoments(stats: VariantStats): Moments {
  const n = sampleCount(stats);
  const successes = finite(stats.sum, 'sum');
  if (successes < 0 || successes > n) throw new StatisticsError('conversions must be between 0 and the number of samples');
  const p = successes / n;
  return { n, value: p, variance: p * (1 - p) };
}

// Delta method for the ratio of two per-unit means, with their covariance.
function ratioMoments(stats: VariantStats): Moments {
  const n = sampleCount(stats);
  const num = finite(stats.sum, 'sum');
  const numSquares = finite(stats.sum_squares, 'sum_squares');
  const den = finite(stats.denominator_sum, 'denominator_sum');
  const denSquares = finite(stats.denominator_sum_squares, 'denominator_sum_squares');
  const cross = finite(stats.numerator_denominator_sum_product, 'numerator_denominator_sum_product');
  const meanNum = num / n;
  const meanDen = den / n;
  if (Math.abs(meanDen) < 1e-10) throw new StatisticsError('denominator mean is zero');
  const varNum = sampleVariance(n, num, numSquares, 'numerator');
  const varDen = sampleVariance(n, den, denSquares, 'denominator');
  const covariance = n > 1 ? (cross - (num * den) / n) / (n - 1) : 0;
  const variance =
    varNum / meanDen ** 2 + (meanNum ** 2 * varDen) / meanDen ** 4 - (2 * meanNum * covariance) / meanDen ** 3;
  return { n, value: num / den, variance: Math.max(0, variance) };
}

export function momentsOf(type: MetricType, stats: VariantStats): Moments {
  if (type === 'funnel') return proportionMoments(stats);
  if (type === 'ratio') return ratioMoments(stats);
  return meanMoments(stats);
}
