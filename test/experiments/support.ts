import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export const experimentsUrl = (projectId: number) => `/api/projects/${projectId}/experiments/`;

let counter = 0;
export const uniqueKey = (prefix = 'exp-flag') => `${prefix}-${Date.now().toString(36)}-${++counter}`;

export async function createExperiment(t: TestApp, body: Json = {}): Promise<Json> {
  const response = await t.request({
    method: 'POST',
    url: experimentsUrl(t.projectId),
    payload: { name: `Experiment ${++counter}`, feature_flag_key: uniqueKey(), ...body },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

export function patchExperiment(t: TestApp, id: number, body: Json, key?: string) {
  return t.request({ method: 'PATCH', url: `${experimentsUrl(t.projectId)}${id}/`, payload: body, key });
}

export function action(t: TestApp, id: number, name: string, body: Json = {}) {
  return t.request({ method: 'POST', url: `${experimentsUrl(t.projectId)}${id}/${name}/`, payload: body });
}

export async function flagOf(t: TestApp, id: number): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

export const meanMetric = (event: string, extra: Json = {}) => ({
  kind: 'ExperimentMetric',
  metric_type: 'mean',
  source: { kind: 'EventsNode', event, math: 'total' },
  ...extra,
});

export const funnelMetric = (...events: string[]) => ({
  kind: 'ExperimentMetric',
  metric_type: 'funnel',
  series: events.map((event) => ({ kind: 'EventsNode', event })),
});
