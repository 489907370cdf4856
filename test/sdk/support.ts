/** Shared setup of the SDK endpoint tests: an app with its project token and secret token known. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { generateSecret, hashSecret, maskSecret } from '../../src/accounts/auth/keys.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

export type Json = Record<string, any>;

export interface SdkTestApp extends TestApp {
  /** The project's public token (phc_…). */
  token: string;
  /** The project's secret token (phs_…), set for the test. */
  secret: string;
  /** `http://127.0.0.1:<port>` once `listen()` ran. */
  url: string;
  listen(): Promise<string>;
}

export async function startSdkApp(): Promise<SdkTestApp> {
  const t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  const secret = generateSecret('phs_');
  await t.db.pool.query('UPDATE projects SET secret_token_hash = $2, secret_token_mask = $3 WHERE id = $1', [
    t.projectId,
    hashSecret(secret),
    maskSecret(secret),
  ]);
  const app: SdkTestApp = Object.assign(t, {
    token: rows[0].api_token,
    secret,
    url: '',
    async listen() {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      app.url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      return app.url;
    },
  });
  return app;
}

export const flagsUrl = (projectId: number | string) => `/api/projects/${projectId}/feature_flags/`;

export async function createFlag(t: TestApp, body: Json): Promise<Json> {
  const response = await t.request({ method: 'POST', url: flagsUrl(t.projectId), payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

export async function patchFlag(t: TestApp, id: unknown, body: Json): Promise<Json> {
  const response = await t.request({ method: 'PATCH', url: `${flagsUrl(t.projectId)}${id}/`, payload: body });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

/** Events through `/batch/` (what posthog-node sends); answers when they are stored. */
export async function capture(t: SdkTestApp, events: Json[]): Promise<void> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/batch/',
    payload: { api_key: t.token, batch: events.map((event) => ({ uuid: randomUUID(), timestamp: new Date().toISOString(), ...event })) },
  });
  assert.equal(response.statusCode, 200, response.body);
}

/** A person with these properties (an `$identify` with `$set`). */
export function identify(distinctId: string, properties: Json): Json {
  return { event: '$identify', distinct_id: distinctId, properties: { $set: properties } };
}

/** A group with these properties (`$groupidentify`). */
export function groupIdentify(type: string, key: string, properties: Json): Json {
  return {
    event: '$groupidentify',
    distinct_id: `$${type}_${key}`,
    properties: { $group_type: type, $group_key: key, $group_set: properties },
  };
}

export async function insertCohort(
  t: TestApp,
  cohort: { id?: number; name?: string; isStatic?: boolean; properties?: Json },
): Promise<number> {
  const filters = cohort.properties ? { properties: cohort.properties } : {};
  const { rows } = await t.db.pool.query<{ id: number }>(
    cohort.id === undefined
      ? 'INSERT INTO cohorts (project_id, name, is_static, filters) VALUES ($1, $2, $3, $4) RETURNING id'
      : 'INSERT INTO cohorts (project_id, name, is_static, filters, id) VALUES ($1, $2, $3, $4, $5) RETURNING id',
    [t.projectId, cohort.name ?? 'cohort', cohort.isStatic ?? false, JSON.stringify(filters), ...(cohort.id === undefined ? [] : [cohort.id])],
  );
  return rows[0].id;
}

/** Puts the persons of these distinct ids into a static cohort. */
export async function addToStaticCohort(t: TestApp, cohortId: number, distinctIds: string[]): Promise<void> {
  await t.db.pool.query(
    `INSERT INTO cohort_people (cohort_id, person_id)
     SELECT $1, person_id FROM person_distinct_ids WHERE project_id = $2 AND distinct_id = ANY($3::text[])
     ON CONFLICT DO NOTHING`,
    [cohortId, t.projectId, distinctIds],
  );
}

export async function postFlags(t: SdkTestApp, body: Json, query = 'v=2', path = '/flags/') {
  return t.app.inject({ method: 'POST', url: `${path}?${query}`, payload: { token: t.token, ...body } });
}

/** A change notice as another process would send it (the app hears it; its own are ignored). */
export async function notifyChange(t: TestApp, change: Json): Promise<void> {
  await t.db.pool.query('SELECT pg_notify($1, $2)', ['bellwether_changes', JSON.stringify({ origin: 'test', change })]);
}
