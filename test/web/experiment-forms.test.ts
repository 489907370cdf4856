// The experiment pages' pure parts: the metric editor's output is a metric the API's own parser
// accepts and reads back as built; the split and key helpers; results in words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMetric } from '../../src/experiments/metrics/parse.ts';
import { emptySource, metricOf, metricProblem, newMetricForm, uid, type MetricForm } from '../../web/src/experiments/metric-form.ts';
import { describeMetric, formatLift, formatProbability, outcomeText } from '../../web/src/experiments/metric-text.ts';
import { evenSplit, keyFromName } from '../../web/src/experiments/variants-form.ts';

function form(changes: Partial<MetricForm>): MetricForm {
  return { ...newMetricForm(), ...changes };
}

test('a funnel with filtered steps and a window: accepted by the API’s parser as built', () => {
  const built = metricOf(
    form({
      type: 'funnel',
      steps: [
        { ...emptySource('add to cart'), filters: [{ uid: uid(), key: 'plan', operator: 'exact', value: 'pro' }] },
        { ...emptySource('purchase'), filters: [{ uid: uid(), key: 'coupon', operator: 'is_set', value: 'ignored' }] },
      ],
      window: '7',
      windowUnit: 'day',
    }),
  );
  const parsed = parseMetric(built, 'metrics');
  assert.equal(parsed.metric_type, 'funnel');
  assert.equal(parsed.windowMs, 7 * 86_400_000);
  if (parsed.metric_type !== 'funnel') return;
  assert.deepEqual(
    parsed.series.map((step) => [step.event, step.properties]),
    [
      ['add to cart', [{ key: 'plan', operator: 'exact', value: 'pro' }]],
      ['purchase', [{ key: 'coupon', operator: 'is_set', value: null }]],
    ],
  );
  assert.equal(describeMetric(built), 'Conversion: add to cart (1 filter) → purchase (1 filter)');
});

test('a mean summing a property and a ratio of two sources: accepted as built; blank filter rows are dropped', () => {
  const mean = metricOf(
    form({ type: 'mean', name: ' Revenue ', source: { event: 'purchase', math: 'sum', property: 'amount', filters: [{ uid: uid(), key: ' ', operator: 'exact', value: '' }] } }),
  );
  const parsedMean = parseMetric(mean, 'metrics');
  assert.equal(mean.name, 'Revenue');
  assert.ok(parsedMean.metric_type === 'mean');
  assert.deepEqual([parsedMean.source.math, parsedMean.source.math_property, parsedMean.source.properties], ['sum', 'amount', []]);
  assert.equal(parsedMean.windowMs, null);

  const ratio = metricOf(form({ type: 'ratio', numerator: { ...emptySource('purchase'), math: 'sum', property: 'amount' }, denominator: emptySource('$pageview') }));
  const parsedRatio = parseMetric(ratio, 'metrics');
  assert.ok(parsedRatio.metric_type === 'ratio');
  assert.equal(parsedRatio.numerator.math_property, 'amount');
  assert.equal(parsedRatio.denominator.event, '$pageview');
  assert.equal(describeMetric(ratio), 'Ratio: sum of amount on purchase / count of $pageview');
});

test('what stops a metric from being sent is named', () => {
  assert.equal(metricProblem(form({ type: 'funnel', steps: [emptySource()] })), 'Choose an event for every step.');
  assert.equal(metricProblem(form({ type: 'funnel', steps: [] })), 'A funnel needs at least one step.');
  assert.equal(metricProblem(form({ type: 'mean', source: { ...emptySource('purchase'), math: 'avg' } })), 'Name the property to add up.');
  assert.equal(metricProblem(form({ type: 'funnel', steps: [emptySource('purchase')], window: '1.5' })), 'The window is a whole number.');
  assert.equal(metricProblem(form({ type: 'funnel', steps: [emptySource('purchase')] })), null);
});

test('even splits add up to 100 for 2 to 10 variants; keys from names', () => {
  for (let count = 2; count <= 10; count++) {
    const split = evenSplit(count);
    assert.equal(split.length, count);
    assert.equal(split.reduce((a, b) => a + b, 0), 100);
    assert.ok(Math.max(...split) - Math.min(...split) <= 1);
  }
  assert.deepEqual(evenSplit(3), [34, 33, 33]);
  assert.equal(keyFromName('  Green Checkout — Button!  '), 'green-checkout-button');
  assert.equal(keyFromName('***'), '');
});

test('results in words', () => {
  assert.equal(formatLift(0.1234), '+12%');
  assert.equal(formatLift(-0.0512), '-5.1%');
  assert.equal(formatProbability(0.99995), '> 99.9%');
  assert.equal(formatProbability(0.0001), '< 0.1%');
  const base = { key: 'test', number_of_samples: 100, sum: 10, sum_squares: 10 };
  assert.equal(outcomeText({ ...base, method: 'bayesian', validation_failures: [], chance_to_win: 0.961, significant: true, credible_interval: [0.01, 0.2] }), '96.1% chance to win · significant');
  assert.equal(outcomeText({ ...base, method: 'frequentist', validation_failures: [], p_value: 0.031, significant: true, confidence_interval: [0.01, 0.2] }), 'p 0.0310 · significant');
  assert.equal(outcomeText({ ...base, method: 'bayesian', validation_failures: ['not-enough-exposures'] }), 'Not enough data');
});
