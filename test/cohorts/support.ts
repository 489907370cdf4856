import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

export { keyWith, otherProject } from '../helpers/api.ts';

export type Json = Record<string, any>;

export const cohortsUrl = (projectId: number | string = 1) => `/api/projects/${projectId}/cohorts/`;

/** A person of the project with these distinct ids (in order) and stored properties, written with SQL. */
export async function insertPerson(
  t: TestApp,
  distinctIds: string[],
  properties: Record<string, unknown> = {},
  projectId = t.projectId,
): Promise<{ id: number; uuid: string }> {
  const { rows } = await t.db.pool.query<{ id: number; uuid: string }>(
    'INSERT INTO persons (project_id, properties) VALUES ($1, $2) RETURNING id, uuid',
    [projectId, JSON.stringify(properties)],
  );
  for (const distinctId of distinctIds) {
    await t.db.pool.query('INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) VALUES ($1, $2, $3)', [
      projectId,
      distinctId,
      rows[0].id,
    ]);
  }
  return rows[0];
}

export async function createCohort(t: TestApp, body: Json, projectId: number | string = t.projectId): Promise<Json> {
  const response = await t.request({ method: 'POST', url: cohortsUrl(projectId), payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

export async function patchCohort(t: TestApp, id: unknown, body: Json) {
  return t.request({ method: 'PATCH', url: `${cohortsUrl(t.projectId)}${id}/`, payload: body });
}

export async function getCohort(t: TestApp, id: unknown): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${cohortsUrl(t.projectId)}${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

export const person = (key: string, value: unknown, operator = 'exact', extra: Json = {}) => ({ type: 'person', key, value, operator, ...extra });
export const cohortRef = (id: number, extra: Json = {}) => ({ type: 'cohort', key: 'id', value: id, ...extra });
export const and = (...values: unknown[]) => ({ type: 'AND', values });
export const or = (...values: unknown[]) => ({ type: 'OR', values });
export const filtersOf = (group: unknown) => ({ properties: group });

export function assertError(response: { statusCode: number; body: string; json(): any }, status: number, expected: Partial<Json>) {
  assert.equal(response.statusCode, status, response.body);
  const body = response.json();
  for (const [field, value] of Object.entries(expected)) assert.deepEqual(body[field], value, `${field}: ${response.body}`);
}
