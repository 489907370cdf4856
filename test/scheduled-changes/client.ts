import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

export type Json = Record<string, unknown>;

export const schedulesUrl = (t: TestApp) => `/api/projects/${t.projectId}/scheduled_changes/`;

export async function postSchedule(t: TestApp, body: Json, key?: string) {
  return t.request({ method: 'POST', url: schedulesUrl(t), payload: body, ...(key === undefined ? {} : { key }) });
}

export async function schedule(t: TestApp, body: Json): Promise<Json> {
  const response = await postSchedule(t, body);
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

export async function getSchedule(t: TestApp, id: unknown): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${schedulesUrl(t)}${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

export async function newFlag(t: TestApp, body: Json = {}): Promise<Json> {
  const response = await t.request({
    method: 'POST',
    url: `/api/projects/${t.projectId}/feature_flags/`,
    payload: { key: `flag-${Math.random().toString(36).slice(2, 10)}`, active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] }, ...body },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

export async function readFlag(t: TestApp, id: unknown): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}
