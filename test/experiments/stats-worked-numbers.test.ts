// Experiment statistics (src/experiments/stats): PostHog's worked numbers, the minimum-data rules,
// how stats_config is read, and the inputs that must be refused rather than computed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  analyzeMetric,
  baselineKey,
  estimatedRunningDays,
  minimumDetectableEffect,
  readStatsConfig,
  sampleRatioMismatch,
  sampleSizePerVariant,
  StatisticsError,
  type BayesianVariantResult,
  type FrequentistVariantResult,
  type VariantStats,
} from '../../src/experiments/stats/index.ts';

// Within one unit of the published figure's last digit (some are cut, not rounded: 0.084878 is
// published as 0.08487).
function close(actual: number | undefined, expected: number, digits: number, what: string): void {
  assert.ok(actual !== undefined, `${what} missing`);
  assert.ok(Math.abs(actual - expected) < 10 ** -digits, `${what}: ${actual} is not ${expected} to ${digits} places`);
}

function bayesian(result: ReturnType<typeof analyzeMetric>, index = 0): BayesianVariantResult {
  const variant = result.variant_results[index];
  assert.equal(variant.method, 'bayesian');
  return variant as BayesianVariantResult;
}

function frequentist(result: ReturnType<typeof analyzeMetric>, index = 0): FrequentistVariantResult {
  const variant = result.variant_results[index];
  assert.equal(variant.method, 'frequentist');
  return variant as FrequentistVariantResult;
}

const meanTest: VariantStats = { key: 'test', number_of_samples: 2461, sum: 1922.7, sum_squares: 94698.29 };
const meanControl: VariantStats = { key: 'control', number_of_samples: 2507, sum: 1196.87, sum_squares: 37377.9767 };
const funnelTest: VariantStats = { key: 'test', number_of_samples: 1471, sum: 62, sum_squares: 62 };
const funnelControl: VariantStats = { key: 'control', number_of_samples: 1529, sum: 87, sum_squares: 87 };
const FREQUENTIST = { method: 'frequentist' };

test('mean, frequentist relative: p 0.08487, CI [−0.08755, 1.36048], not significant', () => {
  const variant = frequentist(analyzeMetric('mean', meanControl, [meanTest], FREQUENTIST));
  close(variant.p_value, 0.08487, 5, 'p_value');
  close(variant.confidence_interval?.[0], -0.08755, 5, 'lower');
  close(variant.confidence_interval?.[1], 1.36048, 5, 'upper');
  assert.equal(variant.significant, false);
  assert.deepEqual(variant.validation_failures, []);
});

test('mean, Bayesian relative: chance 0.95759, CI [−0.08733, 1.36027], significant although the interval spans 0', () => {
  const variant = bayesian(analyzeMetric('mean', meanControl, [meanTest], undefined));
  close(variant.chance_to_win, 0.95759, 5, 'chance_to_win');
  close(variant.credible_interval?.[0], -0.08733, 5, 'lower');
  close(variant.credible_interval?.[1], 1.36027, 5, 'upper');
  assert.equal(variant.significant, true);
});

test('mean, frequentist absolute: p 0.03719, CI [0.01804, 0.58967]', () => {
  const config = { method: 'frequentist', frequentist: { difference_type: 'ABSOLUTE' } };
  const variant = frequentist(analyzeMetric('mean', meanControl, [meanTest], config));
  close(variant.p_value, 0.03719, 5, 'p_value');
  close(variant.confidence_interval?.[0], 0.01804, 5, 'lower');
  close(variant.confidence_interval?.[1], 0.58967, 5, 'upper');
  assert.equal(variant.significant, true);
});

test('proportion, frequentist relative: p 0.030960, CI [−0.49475, −0.02376], significant', () => {
  const variant = frequentist(analyzeMetric('funnel', funnelControl, [funnelTest], FREQUENTIST));
  close(variant.p_value, 0.03096, 5, 'p_value');
  close(variant.confidence_interval?.[0], -0.49475, 5, 'lower');
  close(variant.confidence_interval?.[1], -0.02376, 5, 'upper');
  assert.equal(variant.significant, true);
});

test('proportion, Bayesian: chance 0.01544, CI [−0.49466, −0.02386], significant because it clearly loses', () => {
  const variant = bayesian(analyzeMetric('funnel', funnelControl, [funnelTest], {}));
  close(variant.chance_to_win, 0.01544, 5, 'chance_to_win');
  close(variant.credible_interval?.[0], -0.49466, 5, 'lower');
  close(variant.credible_interval?.[1], -0.02386, 5, 'upper');
  assert.equal(variant.significant, true);
});

test('ratio, frequentist relative: p 0.0032826, CI [0.013786, 0.068880]', () => {
  const ratioTest: VariantStats = {
    key: 'test',
    number_of_samples: 2034,
    sum: 99673.9364269569,
    sum_squares: 11298745.182728939,
    denominator_sum: 947,
    denominator_sum_squares: 947,
    numerator_denominator_sum_product: 99673.9364269569,
  };
  const ratioControl: VariantStats = {
    key: 'control',
    number_of_samples: 1966,
    sum: 94605.79858780127,
    sum_squares: 10463129.505392816,
    denominator_sum: 936,
    denominator_sum_squares: 936,
    numerator_denominator_sum_product: 94605.79858780127,
  };
  const variant = frequentist(analyzeMetric('ratio', ratioControl, [ratioTest], FREQUENTIST));
  close(variant.p_value, 0.0032826, 7, 'p_value');
  close(variant.confidence_interval?.[0], 0.013786, 6, 'lower');
  close(variant.confidence_interval?.[1], 0.06888, 6, 'upper');
});

test('110 of 1000 against 100 of 1000: chance 0.7566, CI [−0.1819, 0.3819]; frequentist p 0.4869', () => {
  const control: VariantStats = { key: 'control', number_of_samples: 1000, sum: 100, sum_squares: 100 };
  const test: VariantStats = { key: 'test', number_of_samples: 1000, sum: 110, sum_squares: 110 };
  const b = bayesian(analyzeMetric('funnel', control, [test], {}));
  close(b.chance_to_win, 0.7566, 4, 'chance_to_win');
  close(b.credible_interval?.[0], -0.1819, 4, 'lower');
  close(b.credible_interval?.[1], 0.3819, 4, 'upper');
  assert.equal(b.significant, false);
  close(frequentist(analyzeMetric('funnel', control, [test], FREQUENTIST)).p_value, 0.4869, 4, 'p_value');
});

test('sample ratio: 520 against 480 at 50/50 is p 0.2059, no mismatch; 600 against 400 is one', () => {
  const even = sampleRatioMismatch({ control: 520, test: 480 }, { control: 50, test: 50 });
  assert.ok(even);
  close(even.p_value, 0.2059, 4, 'p_value');
  assert.deepEqual(even.expected, { control: 500, test: 500 });
  assert.equal(even.mismatch, false);
  const skewed = sampleRatioMismatch({ control: 600, test: 400 }, { control: 50, test: 50 });
  assert.equal(skewed?.mismatch, true);
});

test('sample ratio: skipped under 100 exposures or with fewer than two variants; zero-share variants left out', () => {
  assert.equal(sampleRatioMismatch({ control: 60, test: 39 }, { control: 50, test: 50 }), null);
  assert.equal(sampleRatioMismatch({ control: 500 }, { control: 100 }), null);
  assert.equal(sampleRatioMismatch({ control: 500, test: 500 }, { control: 100, test: 0 }), null);
  const three = sampleRatioMismatch({ a: 250, b: 250, c: 500, gone: 900 }, { a: 25, b: 25, c: 50, gone: 0 });
  assert.deepEqual(three?.expected, { a: 250, b: 250, c: 500 });
  close(three?.p_value, 1, 9, 'p_value');
});

test('fewer than 50 exposures: the variant reports it and gets no numbers; the others still do', () => {
  const small: VariantStats = { key: 'small', number_of_samples: 49, sum: 40, sum_squares: 4000 };
  const result = analyzeMetric('mean', meanControl, [meanTest, small], {});
  assert.deepEqual(result.baseline.validation_failures, []);
  assert.deepEqual(result.variant_results[1].validation_failures, ['not-enough-exposures']);
  assert.equal(bayesian(result, 1).chance_to_win, undefined);
  assert.equal(bayesian(result, 1).credible_interval, undefined);
  assert.ok(bayesian(result, 0).chance_to_win !== undefined);
});

test('a baseline that fails validation stops every comparison, and says why', () => {
  const result = analyzeMetric('funnel', { key: 'control', number_of_samples: 40, sum: 0, sum_squares: 0 }, [funnelTest], FREQUENTIST);
  assert.deepEqual(result.baseline.validation_failures, ['not-enough-exposures', 'not-enough-metric-data', 'baseline-mean-is-zero']);
  assert.deepEqual(result.variant_results[0].validation_failures, []);
  assert.equal(frequentist(result).p_value, undefined);
  assert.equal(frequentist(result).significant, undefined);
});

test('a funnel variant with fewer than 5 conversions has not enough metric data', () => {
  const result = analyzeMetric('funnel', funnelControl, [{ key: 'test', number_of_samples: 500, sum: 4, sum_squares: 4 }], {});
  assert.deepEqual(result.variant_results[0].validation_failures, ['not-enough-metric-data']);
  assert.equal(bayesian(result).chance_to_win, undefined);
});

test('the results carry every input field through (step counts, ratio sums)', () => {
  const control = { ...funnelControl, step_counts: [400, 87] };
  const variant = { ...funnelTest, step_counts: [380, 62] };
  const result = analyzeMetric('funnel', control, [variant], {});
  assert.deepEqual(result.baseline.step_counts, [400, 87]);
  assert.deepEqual(result.variant_results[0].step_counts, [380, 62]);
  assert.equal(result.variant_results[0].key, 'test');
});

test('stats_config: defaults for anything missing, unknown or out of range', () => {
  const defaults = { method: 'bayesian', ciLevel: 0.95, alpha: 0.05, differenceType: 'relative' };
  for (const raw of [undefined, null, 'frequentist', [], {}, { method: 'magic' }]) assert.deepEqual(readStatsConfig(raw), defaults);
  assert.deepEqual(readStatsConfig({ method: 'frequentist', frequentist: { alpha: 0.1, difference_type: 'ABSOLUTE' } }), {
    ...defaults,
    method: 'frequentist',
    alpha: 0.1,
    differenceType: 'absolute',
  });
  assert.equal(readStatsConfig({ bayesian: { ci_level: 1.5 } }).ciLevel, 0.95);
  assert.equal(readStatsConfig({ bayesian: { ci_level: '0.9' } }).ciLevel, 0.95);
  assert.equal(readStatsConfig({ bayesian: { ci_level: 0 } }).ciLevel, 0.95);
  assert.equal(readStatsConfig({ bayesian: { ci_level: 0.8 } }).ciLevel, 0.8);
  // the enum's name only: lower case is not it
  assert.equal(readStatsConfig({ bayesian: { difference_type: 'absolute' } }).differenceType, 'relative');
  // each method reads its own section
  assert.equal(readStatsConfig({ method: 'frequentist', bayesian: { difference_type: 'ABSOLUTE' } }).differenceType, 'relative');
});

test('a narrower credible level makes a borderline result significant; a wider one does not', () => {
  const at80 = bayesian(analyzeMetric('funnel', { key: 'control', number_of_samples: 1000, sum: 100, sum_squares: 100 }, [{ key: 'test', number_of_samples: 1000, sum: 110, sum_squares: 110 }], { bayesian: { ci_level: 0.7 } }));
  assert.equal(at80.significant, true);
  const strict = frequentist(analyzeMetric('mean', meanControl, [meanTest], { method: 'frequentist', frequentist: { alpha: 0.01, difference_type: 'ABSOLUTE' } }));
  assert.equal(strict.significant, false);
});

test('numbers that cannot be analysed raise a StatisticsError, never NaN in a result', () => {
  const flat = (key: string): VariantStats => ({ key, number_of_samples: 100, sum: 100, sum_squares: 100 });
  assert.throws(() => analyzeMetric('mean', flat('control'), [flat('test')], {}), StatisticsError);
  assert.throws(() => analyzeMetric('mean', flat('control'), [flat('test')], FREQUENTIST), StatisticsError);
  const negative: VariantStats = { key: 'control', number_of_samples: 100, sum: -50, sum_squares: 400 };
  assert.throws(() => analyzeMetric('mean', negative, [meanTest], {}), /Control mean must be positive/);
  // frequentist allows a negative baseline
  assert.ok(frequentist(analyzeMetric('mean', negative, [meanTest], FREQUENTIST)).p_value! >= 0);
  const impossible: VariantStats = { key: 'test', number_of_samples: 100, sum: 1000, sum_squares: 10 };
  assert.throws(() => analyzeMetric('mean', meanControl, [impossible], {}), StatisticsError);
  const overConverted: VariantStats = { key: 'test', number_of_samples: 100, sum: 101, sum_squares: 101 };
  assert.throws(() => analyzeMetric('funnel', funnelControl, [overConverted], {}), StatisticsError);
  const everyone: VariantStats = { key: 'test', number_of_samples: 100, sum: 98, sum_squares: 98 };
  assert.throws(() => analyzeMetric('funnel', funnelControl, [everyone], {}), /5 conversions and 5 non-conversions/);
  const huge: VariantStats = { key: 'test', number_of_samples: 100, sum: 1e16, sum_squares: 1e33 };
  assert.throws(() => analyzeMetric('mean', meanControl, [huge], {}), StatisticsError);
  const broken = { key: 'test', number_of_samples: 100, sum: NaN, sum_squares: 5 };
  assert.throws(() => analyzeMetric('mean', meanControl, [broken], {}), StatisticsError);
  const noDenominator: VariantStats = { ...meanTest, denominator_sum: 0, denominator_sum_squares: 0, numerator_denominator_sum_product: 0 };
  assert.throws(() => analyzeMetric('ratio', noDenominator, [noDenominator], FREQUENTIST), /denominator/);
});

test('the baseline: the configured key, else control, else the first variant', () => {
  assert.equal(baselineKey(['a', 'control', 'b'], 'b'), 'b');
  assert.equal(baselineKey(['a', 'control', 'b'], 'missing'), 'control');
  assert.equal(baselineKey(['a', 'control', 'b']), 'control');
  assert.equal(baselineKey(['a', 'b'], 42), 'a');
  assert.equal(baselineKey([]), undefined);
});

test('calculator: 10 % conversion, +10 % relative, α 0.05, power 0.8 → 14,749 per variant', () => {
  // (1.959964 + 0.841621)² · (0.09 + 0.0979) / 0.01² = 14,748.04
  assert.equal(sampleSizePerVariant({ metric: 'funnel', baseline_value: 0.1, minimum_detectable_effect: 0.1 }), 14749);
  assert.equal(
    estimatedRunningDays({ metric: 'funnel', baseline_value: 0.1, minimum_detectable_effect: 0.1, variant_count: 2, exposures_per_day: 1000 }),
    30,
  );
  // the inverse gives back the effect
  const effect = minimumDetectableEffect({ metric: 'funnel', baseline_value: 0.1, samples_per_variant: 14748.04 });
  close(effect, 0.1, 5, 'effect');
  const meanEffect = minimumDetectableEffect({ metric: 'mean', baseline_value: 2, baseline_variance: 9, samples_per_variant: 1000 });
  const back = sampleSizePerVariant({ metric: 'mean', baseline_value: 2, baseline_variance: 9, minimum_detectable_effect: meanEffect });
  assert.ok(back === 1000 || back === 1001, `round trip gave ${back}`);
});

test('calculator refuses what has no answer', () => {
  assert.throws(() => sampleSizePerVariant({ metric: 'funnel', baseline_value: 1.2, minimum_detectable_effect: 0.1 }), StatisticsError);
  assert.throws(() => sampleSizePerVariant({ metric: 'funnel', baseline_value: 0.6, minimum_detectable_effect: 1 }), StatisticsError);
  assert.throws(() => sampleSizePerVariant({ metric: 'mean', baseline_value: 3, minimum_detectable_effect: 0.1 }), StatisticsError);
  assert.throws(() => sampleSizePerVariant({ metric: 'funnel', baseline_value: 0.1, minimum_detectable_effect: 0 }), StatisticsError);
  assert.throws(() => sampleSizePerVariant({ metric: 'funnel', baseline_value: 0.1, minimum_detectable_effect: 0.1, power: 1 }), StatisticsError);
  assert.throws(
    () => estimatedRunningDays({ metric: 'funnel', baseline_value: 0.1, minimum_detectable_effect: 0.1, variant_count: 2, exposures_per_day: 0 }),
    StatisticsError,
  );
});
