import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

export { assertValidation } from '../helpers/api.ts';

export type Json = Record<string, unknown>;

export const flagsUrl = (projectId: number | string = 1) => `/api/projects/${projectId}/feature_flags/`;

export async function createFlag(t: TestApp, body: Json): Promise<Json> {
  const response = await t.request({ method: 'POST', url: flagsUrl(t.projectId), payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

export async function patchFlag(t: TestApp, id: unknown, body: Json, headers: Record<string, string> = {}) {
  return t.request({ method: 'PATCH', url: `${flagsUrl(t.projectId)}${id}/`, payload: body, headers });
}

export async function getFlag(t: TestApp, id: unknown) {
  return t.request({ method: 'GET', url: `${flagsUrl(t.projectId)}${id}/` });
}

