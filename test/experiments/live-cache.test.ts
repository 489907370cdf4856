/**
 * Ingestion's per-process list of launched experiments: another process's launch, flag edit and
 * reset reach it through their change notices; this process's own writes at once.
 */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { noticesHeard } from '../helpers/notices.ts';
import { createExperiment, experimentsUrl, uniqueKey, type Json } from './support.ts';

let t: TestApp;
let token: string;
let writer: FastifyInstance;
let ingester: FastifyInstance;
before(async () => {
  t = await startTestApp({ instances: 2 });
  [writer, ingester] = t.apps;
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
});
after(async () => {
  await t.close();
});

const headers = () => ({ authorization: `Bearer ${t.key}` });

async function send(app: FastifyInstance, distinctId: string, flag: string, response: string): Promise<void> {
  const event = { event: '$feature_flag_called', distinct_id: distinctId, timestamp: new Date().toISOString(), properties: { $feature_flag: flag, $feature_flag_response: response } };
  const answer = await app.inject({ method: 'POST', url: '/batch/', payload: { api_key: token, batch: [event] } });
  assert.equal(answer.statusCode, 200, answer.body);
}

async function exposures(experimentId: number): Promise<Json[]> {
  const { rows } = await t.db.pool.query('SELECT first_variant FROM experiment_exposures WHERE experiment_id = $1 ORDER BY first_variant', [experimentId]);
  return rows.map((row) => row.first_variant);
}

async function act(app: FastifyInstance, id: number, name: string): Promise<void> {
  const answer = await app.inject({ method: 'POST', url: `${experimentsUrl(t.projectId)}${id}/${name}/`, headers: headers(), payload: {} });
  assert.equal(answer.statusCode, 200, answer.body);
}

test("another process's launch, flag edit and reset reach ingestion through their notices", async () => {
  const key = uniqueKey();
  const experiment = await createExperiment(t, { feature_flag_key: key });
  await send(ingester, 'before-launch', key, 'control'); // the ingesting process now holds the project's (empty) list
  assert.deepEqual(await exposures(experiment.id), []);

  await act(writer, experiment.id, 'launch');
  await noticesHeard(ingester.kernel.bus, t.db.pool);
  await send(ingester, 'after-launch', key, 'test');
  assert.deepEqual(await exposures(experiment.id), ['test']);

  // A third variant added through the flags API (by the other process) exposes persons once heard.
  const flag = experiment.feature_flag;
  const variants = [
    { key: 'control', rollout_percentage: 34 },
    { key: 'test', rollout_percentage: 33 },
    { key: 'third', rollout_percentage: 33 },
  ];
  const patched = await writer.inject({
    method: 'PATCH',
    url: `/api/projects/${t.projectId}/feature_flags/${flag.id}/`,
    headers: headers(),
    payload: { filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants } } },
  });
  assert.equal(patched.statusCode, 200, patched.body);
  await noticesHeard(ingester.kernel.bus, t.db.pool);
  await send(ingester, 'third-variant', key, 'third');
  assert.deepEqual(await exposures(experiment.id), ['test', 'third']);

  await act(writer, experiment.id, 'reset');
  await noticesHeard(ingester.kernel.bus, t.db.pool);
  await send(ingester, 'after-reset', key, 'control');
  assert.deepEqual(await exposures(experiment.id), [], 'a draft again: nothing kept, nothing counted');
});

test("a process's own launch is seen by its next batch, without waiting for any notice", async () => {
  const key = uniqueKey();
  const experiment = await createExperiment(t, { feature_flag_key: key });
  await send(writer, 'own-before', key, 'control');
  await act(writer, experiment.id, 'launch');
  await send(writer, 'own-after', key, 'control');
  assert.deepEqual(await exposures(experiment.id), ['control']);
});
