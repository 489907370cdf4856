// Bayesian comparison: a flat prior on the difference, so the posterior is normal around the
// estimate with its variance. Closed form; no sampling.
import type { DifferenceType } from './config.ts';
import { normalCdf, normalQuantile } from './distributions.ts';
import { effectOf } from './effect.ts';
import { StatisticsError } from './errors.ts';
import type { Moments } from './variant.ts';

export interface BayesianOutcome {
  chance_to_win: number;
  credible_interval: [number, number];
  significant: boolean;
}

const MIN_OUTCOMES = 5;

// The normal approximation of a proportion needs a few of each outcome.
function checkProportion(moments: Moments): void {
  const successes = Math.round(moments.value * moments.n);
  if (moments.value < 1e-10 || moments.value > 1 - 1e-10) throw new StatisticsError('conversion rate is 0 or 1');
  if (successes < MIN_OUTCOMES || moments.n - successes < MIN_OUTCOMES) {
    throw new StatisticsError('need at least 5 conversions and 5 non-conversions in each group');
  }
}

export function bayesianCompare(
  treatment: Moments,
  baseline: Moments,
  options: { differenceType: DifferenceType; ciLevel: number; proportion: boolean },
): BayesianOutcome {
  if (options.proportion) {
    checkProportion(treatment);
    checkProportion(baseline);
  }
  if (options.differenceType === 'relative' && !(baseline.value > 0)) {
    throw new StatisticsError('Control mean must be positive for relative difference calculation');
  }
  const { difference, variance } = effectOf(treatment, baseline, options.differenceType);
  const sd = Math.sqrt(variance);
  const chance = normalCdf(difference / sd);
  const z = normalQuantile(1 - (1 - options.ciLevel) / 2);
  return {
    chance_to_win: chance,
    credible_interval: [difference - z * sd, difference + z * sd],
    // a clearly losing variant is significant too
    significant: chance > options.ciLevel || chance < 1 - options.ciLevel,
  };
}
