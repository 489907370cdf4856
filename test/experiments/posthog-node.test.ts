import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { analyzeMetric } from '../../src/experiments/stats/index.ts';
import { startSdkApp, type SdkTestApp } from '../sdk/support.ts';
import { action, createExperiment, funnelMetric, type Json } from './support.ts';

// An experiment driven end to end by the real SDK: posthog-node evaluates the experiment's flag
// locally for 20,000 persons (getFeatureFlag sends $feature_flag_called) and captures the goal
// event for a known share of each variant; the results answer with the better variant significant.

const PERSONS = 20_000;
const RATE: Record<string, number> = { control: 0.1, test: 0.14 };

let t: SdkTestApp;
before(async () => {
  t = await startSdkApp();
  await t.listen();
});
after(async () => {
  await t.close();
});

/** A fixed pseudo-random number in [0, 1) per person: the same conversions on every run. */
const draw = (id: string) => createHash('sha256').update(id).digest().readUInt32BE(0) / 2 ** 32;

test('posthog-node getFeatureFlag + capture over 20,000 persons: exposures, conversions and the statistics', { timeout: 120_000 }, async () => {
  const started = Date.now();
  let experiment = await createExperiment(t, { name: 'Checkout button', metrics: [funnelMetric('purchase')] });
  const launched = await action(t, experiment.id, 'launch');
  assert.equal(launched.statusCode, 200, launched.body);
  experiment = launched.json();

  const client = new PostHog(t.token, {
    host: t.url,
    personalApiKey: t.key,
    featureFlagsPollingInterval: 600_000,
    flushAt: 1000,
    maxBatchSize: 1000,
    maxQueueSize: 100_000,
    flushInterval: 0,
    disableGeoip: true,
  });
  const errors: unknown[] = [];
  client.on('error', (error) => errors.push(error));
  await client.reloadFeatureFlags();
  assert.ok(client.isLocalEvaluationReady());

  const exposed: Record<string, number> = { control: 0, test: 0 };
  const converted: Record<string, number> = { control: 0, test: 0 };
  for (let i = 0; i < PERSONS; i++) {
    const distinctId = `person-${i}`;
    const variant = await client.getFeatureFlag(experiment.feature_flag_key, distinctId, { onlyEvaluateLocally: true });
    assert.ok(variant === 'control' || variant === 'test', String(variant));
    exposed[variant]++;
    if (draw(distinctId) < RATE[variant]) {
      converted[variant]++;
      // A second later, as a person buys after seeing the page: posthog-node stamps the
      // $feature_flag_called it sends for getFeatureFlag when it queues it, which may be a
      // millisecond after a capture made right away (and a goal before the exposure does not count).
      client.capture({ distinctId, event: 'purchase', properties: { amount: 20 }, timestamp: new Date(Date.now() + 1000) });
    }
  }
  await client.shutdown(60_000);
  assert.deepEqual(errors, []);

  const query = (body: Json) => t.request({ method: 'POST', url: `/api/environments/${t.projectId}/query/`, payload: { ...body, refresh: 'blocking' } });
  const exposures = await query({ query: { kind: 'ExperimentExposureQuery', experiment_id: experiment.id } });
  assert.equal(exposures.statusCode, 200, exposures.body);
  assert.deepEqual(exposures.json().total_exposures, exposed);
  assert.equal(exposures.json().sample_ratio_mismatch.p_value > 0.001, true, 'a 50/50 split shows no mismatch');

  const response = await query({ query: { kind: 'ExperimentQuery', experiment_id: experiment.id, metric: experiment.metrics[0] } });
  assert.equal(response.statusCode, 200, response.body);
  const result = response.json();
  assert.equal(result.kind, 'ExperimentQuery');
  assert.deepEqual(
    [result.baseline.key, result.baseline.number_of_samples, result.baseline.sum, result.baseline.step_counts],
    ['control', exposed.control, converted.control, [converted.control]],
  );
  const [testVariant] = result.variant_results;
  assert.deepEqual([testVariant.key, testVariant.number_of_samples, testVariant.sum], ['test', exposed.test, converted.test]);
  assert.equal(testVariant.method, 'bayesian');
  assert.equal(testVariant.significant, true);
  assert.ok(testVariant.chance_to_win > 0.99, String(testVariant.chance_to_win));
  assert.ok(testVariant.credible_interval[0] > 0);

  // The numbers are the statistics module's on the same counts…
  const stats = (key: string) => ({ key, number_of_samples: exposed[key], sum: converted[key], sum_squares: converted[key], step_counts: [converted[key]] });
  const expected = analyzeMetric('funnel', stats('control'), [stats('test')], { method: 'bayesian' });
  assert.deepEqual(result.variant_results, expected.variant_results);
  // …and scipy's: chance to win Φ(Δ/σ) and the 95 % interval of the relative lift by the delta method.
  const script = `
import json, sys
from scipy import stats
nc, sc, nt, st = ${exposed.control}, ${converted.control}, ${exposed.test}, ${converted.test}
pc, pt = sc / nc, st / nt
delta = (pt - pc) / pc
var = pt * (1 - pt) / (nt * pc ** 2) + pt ** 2 * pc * (1 - pc) / (nc * pc ** 4)
sd = var ** 0.5
z = stats.norm.ppf(0.975)
print(json.dumps([stats.norm.cdf(delta / sd), delta - z * sd, delta + z * sd]))`;
  const [chance, low, high] = JSON.parse(execFileSync('python3', ['-c', script], { encoding: 'utf8' }));
  assert.ok(Math.abs(testVariant.chance_to_win - chance) < 1e-9, `${testVariant.chance_to_win} vs scipy ${chance}`);
  assert.ok(Math.abs(testVariant.credible_interval[0] - low) < 1e-9);
  assert.ok(Math.abs(testVariant.credible_interval[1] - high) < 1e-9);

  // The same experiment read with the frequentist method.
  const frequentist = analyzeMetric('funnel', stats('control'), [stats('test')], { method: 'frequentist' });
  assert.ok((frequentist.variant_results[0] as { p_value: number }).p_value < 0.05);
  process.stdout.write(
    `# ${PERSONS} persons, exposures ${JSON.stringify(exposed)}, conversions ${JSON.stringify(converted)}, chance to win ${testVariant.chance_to_win.toFixed(6)}, ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
});
