// Frequentist comparison: Welch's two-sided t-test on the difference. The degrees of freedom come
// from the raw per-group variances, also when the difference is relative.
import type { DifferenceType } from './config.ts';
import { studentTCdf, studentTQuantile } from './distributions.ts';
import { effectOf } from './effect.ts';
import { StatisticsError } from './errors.ts';
import type { Moments } from './variant.ts';

export interface FrequentistOutcome {
  p_value: number;
  confidence_interval: [number, number];
  significant: boolean;
}

const MIN_SAMPLES = 5;

export function welchDegreesOfFreedom(treatment: Moments, baseline: Moments): number {
  const a = treatment.variance / treatment.n;
  const b = baseline.variance / baseline.n;
  return (a + b) ** 2 / (a ** 2 / (treatment.n - 1) + b ** 2 / (baseline.n - 1));
}

export function frequentistCompare(
  treatment: Moments,
  baseline: Moments,
  options: { differenceType: DifferenceType; alpha: number },
): FrequentistOutcome {
  if (treatment.n < MIN_SAMPLES || baseline.n < MIN_SAMPLES) throw new StatisticsError('need at least 5 samples in each group');
  if (options.differenceType === 'relative' && Math.abs(baseline.value) < 1e-10) {
    throw new StatisticsError('Control mean is zero: the relative difference is undefined');
  }
  const { difference, variance } = effectOf(treatment, baseline, options.differenceType);
  const df = welchDegreesOfFreedom(treatment, baseline);
  if (!(df > 0) || !Number.isFinite(df)) throw new StatisticsError('degrees of freedom undefined');
  const se = Math.sqrt(variance);
  const t = difference / se;
  const pValue = Math.min(1, 2 * studentTCdf(-Math.abs(t), df));
  const critical = studentTQuantile(1 - options.alpha / 2, df);
  return {
    p_value: pValue,
    confidence_interval: [difference - critical * se, difference + critical * se],
    significant: pValue < options.alpha,
  };
}
