// Minimum-data rules checked before any test: too little data is reported, not computed.
import type { MetricType, ValidationFailure, VariantStats } from './types.ts';

export const MIN_EXPOSURES = 50;
export const MIN_CONVERSIONS = 5;

export function validationFailures(type: MetricType, stats: VariantStats, isBaseline: boolean): ValidationFailure[] {
  const failures: ValidationFailure[] = [];
  if (!(stats.number_of_samples >= MIN_EXPOSURES)) failures.push('not-enough-exposures');
  if (type === 'funnel' && !(stats.sum >= MIN_CONVERSIONS)) failures.push('not-enough-metric-data');
  if (isBaseline && stats.sum === 0) failures.push('baseline-mean-is-zero');
  return failures;
}
