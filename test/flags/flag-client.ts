import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

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

/** Asserts a 400 with the contract's error body. */
export function assertValidation(response: { statusCode: number; json(): unknown; body: string }, detail: string, attr: string | null, code?: string) {
  assert.equal(response.statusCode, 400, response.body);
  const body = response.json() as Json;
  assert.equal(body.type, 'validation_error');
  assert.equal(body.detail, detail);
  assert.equal(body.attr, attr);
  if (code) assert.equal(body.code, code);
}
