// The difference between a test variant and the baseline, and the variance of that estimate.
import type { DifferenceType } from './config.ts';
import { StatisticsError } from './errors.ts';
import type { Moments } from './variant.ts';

export interface Effect {
  /** relative: a fraction (0.10 = +10 %); absolute: in the metric's units */
  difference: number;
  variance: number;
}

export function effectOf(treatment: Moments, baseline: Moments, type: DifferenceType): Effect {
  let effect: Effect;
  if (type === 'absolute') {
    effect = {
      difference: treatment.value - baseline.value,
      variance: treatment.variance / treatment.n + baseline.variance / baseline.n,
    };
  } else {
    const base = baseline.value;
    // delta method, the two groups independent
    effect = {
      difference: (treatment.value - base) / base,
      variance: treatment.variance / (treatment.n * base ** 2) + (treatment.value ** 2 * baseline.variance) / (baseline.n * base ** 4),
    };
  }
  if (!(effect.variance > 0) || !Number.isFinite(effect.variance) || !Number.isFinite(effect.difference)) {
    throw new StatisticsError('the difference has no variance');
  }
  return effect;
}
