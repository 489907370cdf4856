import assert from 'node:assert/strict';
import type { TestApp } from '../helpers/app.ts';

export { assertValidation, keyWith } from '../helpers/api.ts';

export type Json = Record<string, any>;

export const definitionsUrl = (projectId: number | string = 1) => `/api/projects/${projectId}/event_definitions/`;
export const propertiesUrl = (projectId: number | string = 1) => `/api/projects/${projectId}/property_definitions/`;
export const groupsUrl = (projectId: number | string = 1) => `/api/projects/${projectId}/schema_property_groups/`;
export const eventSchemasUrl = (projectId: number | string = 1) => `/api/projects/${projectId}/event_schemas/`;

export const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

/** Creates a definition through the API; answers its id (read from the Location header). */
export async function createDefinition(t: TestApp, body: Json, projectId: number | string = t.projectId): Promise<string> {
  const response = await t.request({ method: 'POST', url: definitionsUrl(projectId), payload: body });
  assert.equal(response.statusCode, 201, response.body);
  const location = String(response.headers.location);
  const match = /\/event_definitions\/([0-9a-f-]{36})\/$/.exec(location);
  assert.ok(match, location);
  return match[1];
}

export async function getDefinition(t: TestApp, id: string, projectId: number | string = t.projectId): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${definitionsUrl(projectId)}${id}/` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

export function missingScope(scope: string) {
  return { type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${scope}'`, attr: null };
}

/** Inserts a definition row directly (ingested-looking fixtures). */
export async function insertDefinitionRow(
  t: TestApp,
  row: { name: string; last_seen_at?: string | null; created_at?: string | null; hidden?: boolean; tags?: string[]; description?: string | null },
  projectId = t.projectId,
): Promise<string> {
  const { rows } = await t.db.pool.query<{ id: string }>(
    `INSERT INTO event_definitions (project_id, name, last_seen_at, created_at, hidden, tags, description)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [
      projectId,
      row.name,
      row.last_seen_at ?? null,
      row.created_at === undefined ? (row.last_seen_at ?? null) : row.created_at,
      row.hidden ?? false,
      row.tags ?? [],
      row.description ?? null,
    ],
  );
  return rows[0].id;
}

/** A second project in the test app's organization. */
export async function secondProject(t: TestApp): Promise<number> {
  const response = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: `Other ${Math.random()}` } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json().id;
}
