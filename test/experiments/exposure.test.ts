import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { metricStatistics, scanMetricStatistics } from '../../src/experiments/results/metric-store.ts';
import { parseMetric } from '../../src/experiments/metrics/parse.ts';
import { advisoryLockKeys } from '../../src/db/advisory-locks.ts';
import { otherProject } from '../helpers/api.ts';
import { action, createExperiment, experimentsUrl, funnelMetric, meanMetric, patchExperiment, uniqueKey, type Json } from './support.ts';

let t: TestApp;
let token: string;
before(async () => {
  t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
});
after(async () => {
  await t.close();
});

async function send(events: Json[], apiToken = token): Promise<void> {
  const response = await t.request({ method: 'POST', url: '/batch/', key: null, payload: { api_key: apiToken, batch: events } });
  assert.equal(response.statusCode, 200, response.body);
}

const at = (base: number, seconds: number) => new Date(base + seconds * 1000).toISOString();
const called = (distinctId: string, flag: string, response: string, timestamp: string, extra: Json = {}) => ({
  event: '$feature_flag_called',
  distinct_id: distinctId,
  timestamp,
  properties: { $feature_flag: flag, $feature_flag_response: response, ...extra },
});
const did = (distinctId: string, event: string, timestamp: string, properties: Json = {}) => ({ event, distinct_id: distinctId, timestamp, properties });

async function query(body: Json, prefix = 'projects') {
  return t.request({ method: 'POST', url: `/api/${prefix}/${t.projectId}/query/`, payload: body });
}

/** The per-variant statistics from the running sums, checked equal to a scan of the per-person rows. */
async function stats(experimentId: number, metric: Json, handling: 'exclude' | 'first_seen' = 'exclude') {
  const parsed = parseMetric(metric, 'metric');
  const plain = (map: Map<string, unknown>) => Object.fromEntries([...map].filter(([, v]) => (v as Json).number_of_samples > 0).sort(([a], [b]) => a.localeCompare(b)));
  const scanned = plain(await scanMetricStatistics(t.db.pool, experimentId, parsed, handling));
  const { rows } = await t.db.pool.query("SELECT exposure_criteria->>'multiple_variant_handling' AS h FROM experiments WHERE id = $1", [experimentId]);
  if ((rows[0].h ?? 'exclude') === handling) assert.deepEqual(plain(await metricStatistics(t.db.pool, experimentId, parsed, handling)), scanned, 'running sums = scan');
  return scanned;
}

describe('exposure and metric state kept at ingestion', () => {
  let experiment: Json;
  let base: number;

  before(async () => {
    experiment = await createExperiment(t, {
      metrics: [meanMetric('purchase'), funnelMetric('add to cart', 'purchase')],
      metrics_secondary: [meanMetric('purchase', { source: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' } })],
      exposure_criteria: { filterTestAccounts: true },
    });
    const launched = await action(t, experiment.id, 'launch');
    assert.equal(launched.statusCode, 200, launched.body);
    experiment = launched.json();
    base = Date.parse(experiment.start_date);
    const flag = experiment.feature_flag_key;
    await send([
      did('early', 'purchase', at(base, -60)),
      called('early', flag, 'control', at(base, -30)), // before the start: no exposure
      called('u1', flag, 'control', at(base, 1)),
      did('u1', 'add to cart', at(base, 2)),
      did('u1', 'purchase', at(base, 3), { amount: 10 }),
      did('u1', 'purchase', at(base, 4), { amount: '5' }),
      called('u1', flag, 'control', at(base, 5)), // a repeat
      did('u2', 'purchase', at(base, 1), { amount: 99 }), // before u2's exposure: not counted
      called('u2', flag, 'test', at(base, 2)),
      did('u2', 'purchase', at(base, 3), { amount: 7 }),
      did('u2', 'add to cart', at(base, 4)), // after the purchase: the ordered funnel is not completed yet
      called('u3', flag, 'control', at(base, 1)),
      called('u3', flag, 'test', at(base, 2)), // seen in both
      did('u3', 'purchase', at(base, 3), { amount: 1 }),
      called('u4', 'another-flag', 'test', at(base, 1)),
      called('u5', flag, 'test', at(base, 1), { $host: 'localhost:3000' }), // a test account
      called('u6', flag, 'holdout-1', at(base, 1)), // not one of the flag's variants
      did('u4', 'purchase', at(base, 2)),
    ]);
    // A later batch: u2 purchases again, completing the funnel.
    await send([did('u2', 'purchase', at(base, 10), { amount: 3 })]);
  });

  test('exposures: first $feature_flag_called per person in the dates, variant from $feature_flag_response, $multiple apart', async () => {
    const response = await query({ query: { kind: 'ExperimentExposureQuery', experiment_id: experiment.id }, refresh: 'blocking' });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.kind, 'ExperimentExposureQuery');
    assert.deepEqual(body.total_exposures, { control: 1, test: 1, $multiple: 1 });
    assert.equal(body.date_range.date_from, experiment.start_date);
    assert.deepEqual(body.timeseries.map((s: Json) => s.variant), ['control', 'test', '$multiple']);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(body.timeseries[0].days.at(-1), today);
    assert.equal(body.timeseries[0].exposure_counts.at(-1), 1);
  });

  test('mean (count and sum of a property), funnel: per-variant sufficient statistics, $multiple left out', async () => {
    const [count, funnel] = experiment.metrics;
    assert.deepEqual((await t.db.pool.query('SELECT step FROM experiment_metric_units WHERE experiment_id = $1 AND metric_uuid = $2 ORDER BY step', [experiment.id, funnel.uuid])).rows.map((r) => r.step), [0, 2, 2]);
    assert.deepEqual(await stats(experiment.id, count), {
      control: { key: 'control', number_of_samples: 1, sum: 2, sum_squares: 4 },
      test: { key: 'test', number_of_samples: 1, sum: 2, sum_squares: 4 },
    });
    assert.deepEqual(await stats(experiment.id, funnel), {
      control: { key: 'control', number_of_samples: 1, sum: 1, sum_squares: 1, step_counts: [1, 1] },
      test: { key: 'test', number_of_samples: 1, sum: 1, sum_squares: 1, step_counts: [1, 1] },
    });
    const amount = experiment.metrics_secondary[0];
    assert.deepEqual(await stats(experiment.id, amount), {
      control: { key: 'control', number_of_samples: 1, sum: 15, sum_squares: 225 },
      test: { key: 'test', number_of_samples: 1, sum: 10, sum_squares: 100 },
    });
    assert.deepEqual(Object.keys(await stats(experiment.id, count, 'first_seen')).sort(), ['control', 'test']);
    assert.equal(((await stats(experiment.id, count, 'first_seen')) as Json).control.number_of_samples, 2);
  });

  test('ExperimentQuery answers PostHog’s shape; too few exposures are "not enough data", not an error', async () => {
    const response = await query({ query: { kind: 'ExperimentQuery', experiment_id: experiment.id, metric: { uuid: experiment.metrics[0].uuid } } });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.kind, 'ExperimentQuery');
    assert.equal(body.baseline.key, 'control');
    assert.deepEqual(body.baseline.validation_failures, ['not-enough-exposures']);
    const [variant] = body.variant_results;
    assert.equal(variant.key, 'test');
    assert.equal(variant.method, 'bayesian');
    assert.equal(variant.chance_to_win, undefined);
  });

  test('a change of metrics rebuilds the state from stored events: the same numbers, and history for the new metric', async () => {
    const before = await stats(experiment.id, experiment.metrics[0]);
    const ratio = {
      kind: 'ExperimentMetric',
      metric_type: 'ratio',
      numerator: { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
      denominator: { kind: 'EventsNode', event: 'purchase', math: 'total' },
    };
    const response = await patchExperiment(t, experiment.id, { metrics: [...experiment.metrics, ratio] });
    assert.equal(response.statusCode, 200, response.body);
    const updated = response.json();
    assert.deepEqual(await stats(experiment.id, updated.metrics[0]), before);
    assert.deepEqual((await stats(experiment.id, updated.metrics[2])).test, {
      key: 'test',
      number_of_samples: 1,
      sum: 10,
      sum_squares: 100,
      denominator_sum: 2,
      denominator_sum_squares: 4,
      numerator_denominator_sum_product: 20,
    });
    // first_seen: the person seen in both counts with the variant of their first exposure.
    const first = await patchExperiment(t, experiment.id, { exposure_criteria: { filterTestAccounts: true, multiple_variant_handling: 'first_seen' } });
    assert.equal(first.statusCode, 200, first.body);
    const exposures = (await query({ query: { kind: 'ExperimentExposureQuery', experiment_id: experiment.id } })).json();
    assert.deepEqual(exposures.total_exposures, { control: 2, test: 1 });
    // Test accounts counted once the filter is off.
    await patchExperiment(t, experiment.id, { exposure_criteria: { filterTestAccounts: false } });
    const all = (await query({ query: { kind: 'ExperimentExposureQuery', experiment_id: experiment.id } })).json();
    assert.deepEqual(all.total_exposures, { control: 1, test: 2, $multiple: 1 });
  });

  test('a goal event that arrives before the exposure it follows (another batch) is counted when the exposure comes', async () => {
    const other = await createExperiment(t, { metrics: [meanMetric('late goal')] });
    const launched = (await action(t, other.id, 'launch')).json();
    const start = Date.parse(launched.start_date);
    await send([did('late', 'late goal', at(start, 5)), did('late', 'late goal', at(start, 0.5))]);
    await send([called('late', launched.feature_flag_key, 'test', at(start, 1))]);
    assert.deepEqual((await stats(other.id, launched.metrics[0])).test, { key: 'test', number_of_samples: 1, sum: 1, sum_squares: 1 });
    // The one stamped before the exposure counts once an earlier exposure comes; the other is not counted twice.
    await send([called('late', launched.feature_flag_key, 'test', at(start, 0.2))]);
    assert.deepEqual((await stats(other.id, launched.metrics[0])).test, { key: 'test', number_of_samples: 1, sum: 2, sum_squares: 4 });
  });

  test('goal events of earlier batches count under the person they were stored with, through any of their distinct ids', async () => {
    const other = await createExperiment(t, { metrics: [meanMetric('merged goal')] });
    const launched = (await action(t, other.id, 'launch')).json();
    const start = Date.parse(launched.start_date);
    const flag = launched.feature_flag_key;
    await send([did('anon-1', 'merged goal', at(start, 2)), did('anon-1', 'merged goal', at(start, 3))]);
    await send([{ event: '$identify', distinct_id: 'known-1', timestamp: at(start, 4), properties: { $anon_distinct_id: 'anon-1' } }]);
    // Personless goal events of another distinct id, and events of a third person: not this person's.
    await send([did('stranger', 'merged goal', at(start, 5)), did('anon-2', 'merged goal', at(start, 5), { $process_person_profile: false })]);
    await send([called('known-1', flag, 'control', at(start, 1)), called('anon-2', flag, 'test', at(start, 1), { $process_person_profile: false })]);
    assert.deepEqual(await stats(other.id, launched.metrics[0]), {
      control: { key: 'control', number_of_samples: 1, sum: 2, sum_squares: 4 },
      test: { key: 'test', number_of_samples: 1, sum: 1, sum_squares: 1 },
    });
  });

  test('a person seen in a second variant in a later batch takes their numbers to $multiple', async () => {
    const other = await createExperiment(t, { metrics: [meanMetric('moved goal'), funnelMetric('moved goal')] });
    const launched = (await action(t, other.id, 'launch')).json();
    const start = Date.parse(launched.start_date);
    const flag = launched.feature_flag_key;
    await send([called('m1', flag, 'control', at(start, 1)), did('m1', 'moved goal', at(start, 2)), called('m2', flag, 'control', at(start, 1))]);
    assert.equal(((await stats(other.id, launched.metrics[0])) as Json).control.sum, 1);
    await send([called('m1', flag, 'test', at(start, 3)), did('m1', 'moved goal', at(start, 4))]);
    assert.deepEqual(await stats(other.id, launched.metrics[0]), { control: { key: 'control', number_of_samples: 1, sum: 0, sum_squares: 0 } });
    assert.deepEqual(await stats(other.id, launched.metrics[1]), { control: { key: 'control', number_of_samples: 1, sum: 0, sum_squares: 0, step_counts: [0] } });
    const exposures = (await query({ query: { kind: 'ExperimentExposureQuery', experiment_id: other.id }, refresh: 'force_blocking' })).json();
    assert.deepEqual(exposures.total_exposures, { control: 1, $multiple: 1 });
  });

  test('results are cached at most 60 s; force_blocking recomputes; an edit of the metrics is seen at once', async () => {
    const other = await createExperiment(t, { metrics: [meanMetric('cached goal')] });
    const launched = (await action(t, other.id, 'launch')).json();
    const start = Date.parse(launched.start_date);
    const ask = async (refresh: string) =>
      (await query({ query: { kind: 'ExperimentExposureQuery', experiment_id: other.id }, refresh })).json().total_exposures;
    await send([called('c1', launched.feature_flag_key, 'test', at(start, 1))]);
    assert.deepEqual(await ask('blocking'), { test: 1 });
    await send([called('c2', launched.feature_flag_key, 'test', at(start, 1))]);
    assert.deepEqual(await ask('blocking'), { test: 1 }, 'served from the cache');
    assert.deepEqual(await ask('force_blocking'), { test: 2 });
    const edited = await patchExperiment(t, other.id, { exposure_criteria: { multiple_variant_handling: 'first_seen' } });
    assert.equal(edited.statusCode, 200, edited.body);
    await send([called('c3', launched.feature_flag_key, 'control', at(start, 1))]);
    assert.deepEqual(await ask('blocking'), { control: 1, test: 2 }, 'a new state generation is not served from the cache');
  });

  test('reset forgets the state', async () => {
    const other = await createExperiment(t, { metrics: [meanMetric('purchase')] });
    const launched = (await action(t, other.id, 'launch')).json();
    await send([called('r1', launched.feature_flag_key, 'test', at(Date.parse(launched.start_date), 1))]);
    const exposed = await t.db.pool.query('SELECT 1 FROM experiment_exposures WHERE experiment_id = $1', [other.id]);
    assert.equal(exposed.rowCount, 1);
    assert.equal((await action(t, other.id, 'reset')).statusCode, 200);
    const after = await t.db.pool.query('SELECT 1 FROM experiment_exposures WHERE experiment_id = $1', [other.id]);
    assert.equal(after.rowCount, 0);
  });

  test('a reset waits for a batch writing the experiment’s state to commit (so no write lands after the clear)', async () => {
    const other = await createExperiment(t, { metrics: [meanMetric('purchase')] });
    await action(t, other.id, 'launch');
    const batch = await t.db.pool.connect();
    try {
      await batch.query('BEGIN');
      // What an ingestion batch holds from its state locks to its commit (state-locks.ts): the experiment's lock, shared.
      const [key] = advisoryLockKeys('bellwether:experiment-state:experiment:', [String(other.id)]);
      await batch.query('SELECT pg_advisory_xact_lock_shared($1)', [key.toString()]);
      let finished = false;
      const reset = action(t, other.id, 'reset').then((response) => ((finished = true), response));
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(finished, false, 'the reset waits');
      await batch.query('COMMIT');
      assert.equal((await reset).statusCode, 200);
    } finally {
      batch.release();
    }
  });
});

describe('concurrent batches', () => {
  test('batches with events of the same persons, none changing a person, lose no count: running sums = scan = what was sent', async () => {
    const launched = await action(t, (await createExperiment(t, { metrics: [meanMetric('concurrent purchase')] })).id, 'launch');
    assert.equal(launched.statusCode, 200, launched.body);
    const running = launched.json();
    const start = Date.parse(running.start_date);
    const people = ['c0', 'c1', 'c2', 'c3'];
    // Exposed (and created) first; then the batches only add events of persons that already exist.
    await send(people.map((id, i) => called(id, running.feature_flag_key, i % 2 === 0 ? 'control' : 'test', at(start, 1))));
    // Each person's aggregate row exists before the concurrent batches, which then all read and rewrite it.
    await send(people.map((id) => did(id, 'concurrent purchase', at(start, 5))));
    const batches = 12;
    await Promise.all(Array.from({ length: batches - 1 }, (_, b) => send(people.map((id) => did(id, 'concurrent purchase', at(start, 10 + b))))));
    const counted = await stats(running.id, running.metrics[0]);
    assert.deepEqual(counted, {
      control: { key: 'control', number_of_samples: 2, sum: 2 * batches, sum_squares: 2 * batches * batches },
      test: { key: 'test', number_of_samples: 2, sum: 2 * batches, sum_squares: 2 * batches * batches },
    });
  });
});

const STATE_TABLES = ['experiment_exposures', 'experiment_metric_units', 'experiment_metric_sums', 'experiment_exposure_days', 'experiment_significance_notices'];

/** Rows per state table, of this experiment or (`others`) of every other one. */
async function stateRows(experimentId: number, others = false): Promise<number[]> {
  const counts: number[] = [];
  for (const table of STATE_TABLES) {
    const { rows } = await t.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE (experiment_id = $1) <> $2`, [experimentId, others]);
    counts.push(rows[0].n);
  }
  return counts;
}

describe('deleting experiments', () => {
  /** Launches an experiment in the project, exposes two persons who purchase, and marks it notified. */
  async function withState(projectId: number, apiToken: string): Promise<number> {
    const created = await t.request({ method: 'POST', url: experimentsUrl(projectId), payload: { name: 'Doomed', feature_flag_key: uniqueKey('doomed'), metrics: [meanMetric('doomed purchase')] } });
    assert.equal(created.statusCode, 201, created.body);
    const launched = await t.request({ method: 'POST', url: `${experimentsUrl(projectId)}${created.json().id}/launch/`, payload: {} });
    assert.equal(launched.statusCode, 200, launched.body);
    const { id, feature_flag_key: flag, start_date: start, metrics } = launched.json();
    const base = Date.parse(start);
    await send([called('d1', flag, 'control', at(base, 1)), called('d2', flag, 'test', at(base, 1)), did('d1', 'doomed purchase', at(base, 2)), did('d2', 'doomed purchase', at(base, 2))], apiToken);
    await t.db.pool.query('INSERT INTO experiment_significance_notices (experiment_id, metric_uuid) VALUES ($1, $2)', [id, metrics[0].uuid]);
    const rows = await stateRows(id);
    assert.ok(rows.every((n) => n > 0), `state in every table before the delete: ${rows}`);
    return id;
  }

  test('an experiment deleted takes its state with it, and no other experiment loses any', async () => {
    const id = await withState(t.projectId, token);
    const others = await stateRows(id, true);
    await t.db.pool.query('DELETE FROM experiments WHERE id = $1', [id]);
    assert.deepEqual(await stateRows(id), [0, 0, 0, 0, 0]);
    assert.deepEqual(await stateRows(id, true), others);
  });

  test('a project deleted takes its experiments\' state with it', async () => {
    const projectId = await otherProject(t);
    const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [projectId]);
    const id = await withState(projectId, rows[0].api_token);
    await t.db.pool.query('DELETE FROM projects WHERE id = $1', [projectId]);
    assert.deepEqual(await stateRows(id), [0, 0, 0, 0, 0]);
  });
});

describe('/query/', () => {
  test('other kinds refused naming what is served; both prefixes; unknown and missing experiments', async () => {
    const other = await query({ query: { kind: 'HogQLQuery', query: 'select 1' } });
    assert.equal(other.statusCode, 400);
    assert.equal(other.json().detail, 'Query kind "HogQLQuery" is not served here; the kinds served are ExperimentQuery and ExperimentExposureQuery.');
    const missing = await query({ query: { kind: 'ExperimentExposureQuery' } }, 'environments');
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().detail, 'experiment_id is required');
    const unknown = await query({ query: { kind: 'ExperimentQuery', experiment_id: 999999, metric: meanMetric('x') } }, 'environments');
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().detail, 'Experiment with id 999999 not found');
    const noBody = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/query/`, payload: {} });
    assert.equal(noBody.statusCode, 400);
  });

  test('a metric that is not the experiment’s is refused clearly', async () => {
    const experiment = await createExperiment(t, { metrics: [meanMetric('purchase')] });
    const response = await query({ query: { kind: 'ExperimentQuery', experiment_id: experiment.id, metric: meanMetric('other event') } });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().detail, /not one of the experiment's metrics/);
  });

  test('query:read is the scope', async () => {
    const { keyWith } = await import('../helpers/api.ts');
    const experiment = await createExperiment(t);
    const body = { query: { kind: 'ExperimentExposureQuery', experiment_id: experiment.id } };
    const reader = await keyWith(t, ['query:read']);
    assert.equal((await t.request({ method: 'POST', url: `/api/environments/${t.projectId}/query/`, payload: body, key: reader })).statusCode, 200);
    const other = await keyWith(t, ['experiment:read']);
    assert.equal((await t.request({ method: 'POST', url: `/api/environments/${t.projectId}/query/`, payload: body, key: other })).statusCode, 403);
  });
});
