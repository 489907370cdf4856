/**
 * `experiment.significant`: a significance round raises it once per (experiment, primary metric)
 * when the results first come out significant, through the webhook outbox in the round's
 * transaction; never again on later rounds, never for a draft, an ended experiment or a metric
 * whose results are not significant, and once when two processes' rounds race.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestApp } from '../helpers/app.ts';
import { ResultsCache } from '../../src/experiments/results/cache.ts';
import { SignificanceJob } from '../../src/experiments/significance/job.ts';
import { createWebhook, startReceiver, startWebhookApp, type Receiver } from '../webhooks/support.ts';
import { action, createExperiment, funnelMetric, meanMetric, type Json } from './support.ts';

let t: TestApp;
let token: string;
let receiver: Receiver;
let endpointId: string;

before(async () => {
  t = await startWebhookApp();
  receiver = await startReceiver();
  const hook = await createWebhook(t, { url: receiver.url, events: ['experiment.significant'] });
  receiver.secret = hook.secret;
  endpointId = hook.id;
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
});
after(async () => {
  await t.close();
  await receiver.close();
});

async function send(events: Json[]): Promise<void> {
  const response = await t.request({ method: 'POST', url: '/batch/', key: null, payload: { api_key: token, batch: events } });
  assert.equal(response.statusCode, 200, response.body);
}

/** `persons` persons per variant exposed at the start; in each variant the first `converted[variant]` of them purchase. */
async function exposeAndConvert(experiment: Json, prefix: string, persons: number, converted: Record<string, number>): Promise<void> {
  const base = Date.parse(experiment.start_date);
  const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();
  const events: Json[] = [];
  for (const variant of ['control', 'test']) {
    for (let i = 0; i < persons; i++) {
      const distinctId = `${prefix}-${variant}-${i}`;
      events.push({ event: '$feature_flag_called', distinct_id: distinctId, timestamp: at(1), properties: { $feature_flag: experiment.feature_flag_key, $feature_flag_response: variant } });
      if (i < converted[variant]) events.push({ event: 'purchase', distinct_id: distinctId, timestamp: at(2), properties: {} });
    }
  }
  for (let i = 0; i < events.length; i += 100) await send(events.slice(i, i + 100));
}

async function launched(body: Json = {}): Promise<Json> {
  const experiment = await createExperiment(t, { metrics: [funnelMetric('purchase')], ...body });
  const response = await action(t, experiment.id, 'launch');
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** The outbox rows of `experiment.significant` for one experiment. */
async function outbox(experimentId: number): Promise<Json[]> {
  const { rows } = await t.db.pool.query(
    `SELECT payload FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'experiment.significant' AND (payload->'data'->'object'->>'id')::int = $2`,
    [endpointId, experimentId],
  );
  return rows.map((row) => row.payload);
}

test('raised once when a primary metric first comes out significant, not again on the next rounds', async () => {
  const experiment = await launched();
  const metricUuid = experiment.metrics[0].uuid;
  // Too few exposures: the analysis stops at its validation, nothing is significant.
  await exposeAndConvert(experiment, 'early', 20, { control: 2, test: 18 });
  const first = await t.app.experimentSignificance.runOnce();
  assert.ok(first.checked >= 1);
  assert.deepEqual(first.raised, []);
  assert.equal((await outbox(experiment.id)).length, 0);

  await exposeAndConvert(experiment, 'late', 60, { control: 8, test: 50 });
  const second = await t.app.experimentSignificance.runOnce();
  assert.deepEqual(second.raised, [{ experimentId: experiment.id, metricUuid }]);
  const rows = await outbox(experiment.id);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].type, 'experiment.significant');
  assert.equal(rows[0].data.object.feature_flag_key, experiment.feature_flag_key);
  assert.deepEqual(rows[0].data.object.significant_metric, { uuid: metricUuid, name: null, significant_variants: ['test'] });
  assert.equal(rows[0].data.object.user_access_level, undefined);

  const third = await t.app.experimentSignificance.runOnce();
  assert.deepEqual(third.raised, []);
  assert.equal((await outbox(experiment.id)).length, 1);

  // Delivered signed, like every other event.
  await t.app.webhookWorker.runOnce();
  const message = receiver.received.find((each) => each.json.type === 'experiment.significant' && each.json.data.object.id === experiment.id);
  assert.ok(message);
  assert.equal(message.verified, true, message.verifyError ?? '');
});

test('a metric whose results are not significant, a draft and an ended experiment raise nothing', async () => {
  const even = await launched();
  await exposeAndConvert(even, 'even', 60, { control: 30, test: 30 });
  const draft = await createExperiment(t, { metrics: [funnelMetric('purchase')] });
  const ended = await launched();
  await exposeAndConvert(ended, 'ended', 60, { control: 8, test: 50 });
  assert.equal((await action(t, ended.id, 'end')).statusCode, 200);
  const report = await t.app.experimentSignificance.runOnce();
  const ids = report.raised.map((each) => each.experimentId);
  for (const id of [even.id, draft.id, ended.id]) {
    assert.ok(!ids.includes(id), `experiment ${id}`);
    assert.equal((await outbox(id)).length, 0, `experiment ${id}`);
  }
});

test('per primary metric: the significant one raises, the other does not; secondary metrics never do', async () => {
  const experiment = await launched({ metrics: [funnelMetric('purchase'), meanMetric('refund')], metrics_secondary: [funnelMetric('purchase')] });
  await exposeAndConvert(experiment, 'two', 60, { control: 8, test: 50 });
  const report = await t.app.experimentSignificance.runOnce();
  assert.deepEqual(
    report.raised.filter((each) => each.experimentId === experiment.id),
    [{ experimentId: experiment.id, metricUuid: experiment.metrics[0].uuid }],
  );
  const rows = await outbox(experiment.id);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].data.object.significant_metric.uuid, experiment.metrics[0].uuid);
});

test('two processes racing: PostgreSQL lets one of them raise it', async () => {
  const experiment = await launched();
  await exposeAndConvert(experiment, 'race', 60, { control: 8, test: 50 });
  const other = new SignificanceJob({ ...t.app.kernel, flagCache: t.app.flagCache, results: new ResultsCache() });
  const [a, b] = await Promise.all([t.app.experimentSignificance.runOnce(), other.runOnce()]);
  const raised = [...a.raised, ...b.raised].filter((each) => each.experimentId === experiment.id);
  assert.equal(raised.length, 1);
  assert.equal((await outbox(experiment.id)).length, 1);
});
