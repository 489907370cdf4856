import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

export { assertValidation, keyWith, otherProject } from '../helpers/api.ts';

export type Json = Record<string, any>;

/** The survey list URL of a project (defaults to the test app's project). */
export const surveysUrl = (projectId: number | string = 1) => `/api/projects/${projectId}/surveys/`;

let counter = 0;

/** A minimal valid create body: a unique name, type popover, one open question. */
export function minimalSurvey(overrides: Json = {}): Json {
  counter += 1;
  return {
    name: `Survey ${counter} ${Date.now().toString(36)}`,
    type: 'popover',
    questions: [{ type: 'open', question: 'What can we do better?' }],
    ...overrides,
  };
}

/** POSTs a survey (the minimal body merged with `body`) to the app's project; asserts 201, answers the write shape. */
export async function createSurvey(t: TestApp, body: Json = {}, projectId: number = t.projectId): Promise<Json> {
  const response = await t.request({ method: 'POST', url: surveysUrl(projectId), payload: minimalSurvey(body) });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

/** GETs a survey (read shape); asserts 200. */
export async function getSurvey(t: TestApp, id: unknown, projectId: number = t.projectId): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${surveysUrl(projectId)}${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** PATCHes a survey; answers the raw response (status not asserted). */
export function patchSurvey(t: TestApp, id: unknown, body: Json, projectId: number = t.projectId) {
  return t.request({ method: 'PATCH', url: `${surveysUrl(projectId)}${id}/`, payload: body });
}

/** A feature flag through the flags API (the user's own flag, e.g. to link). */
export async function createUserFlag(t: TestApp, body: Json, projectId: number = t.projectId): Promise<Json> {
  const response = await t.request({ method: 'POST', url: `/api/projects/${projectId}/feature_flags/`, payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

/** A flag as the flags API shows it by id (deleted ones too). */
export async function getFlagById(t: TestApp, id: unknown, projectId: number = t.projectId): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `/api/projects/${projectId}/feature_flags/${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}
