import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { createFlag, insertCohort, notifyChange, patchFlag, startSdkApp, type Json, type SdkTestApp } from './support.ts';
import { insertProject } from '../../src/accounts/projects/store.ts';
import { eventually } from '../helpers/eventually.ts';
import { inUnit } from '../helpers/database.ts';

let t: SdkTestApp;
const ids: Record<string, number> = {};
let dynamicCohort: number;
let nestedCohort: number;
let staticCohort: number;

const person = (key: string, operator: string, value: unknown) => ({ key, operator, value, type: 'person' });

before(async () => {
  t = await startSdkApp();
  nestedCohort = await insertCohort(t, { name: 'nested', properties: { type: 'AND', values: [person('country', 'exact', 'de')] } });
  dynamicCohort = await insertCohort(t, {
    name: 'dynamic',
    properties: { type: 'OR', values: [{ type: 'AND', values: [person('plan', 'exact', 'pro'), { key: 'id', type: 'cohort', value: nestedCohort, operator: 'in' }] }] },
  });
  staticCohort = await insertCohort(t, { name: 'static', isStatic: true });
  await t.db.pool.query(
    `INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES ($1, 'company', 0), ($1, 'team', 1)`,
    [t.projectId],
  );
  const flag = async (key: string, body: Json) => (ids[key] = (await createFlag(t, { key, ...body })).id);
  await flag('base', { name: 'Base', filters: { groups: [{ properties: [], rollout_percentage: 30 }], payloads: { true: '{"x":1}' } } });
  await flag('off', { active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await flag('cohorts', {
    filters: {
      groups: [
        { properties: [{ key: 'id', type: 'cohort', value: dynamicCohort, operator: 'in' }], rollout_percentage: 100 },
        { properties: [{ key: 'id', type: 'cohort', value: staticCohort, operator: 'in' }], rollout_percentage: 100 },
      ],
    },
  });
  await flag('child', {
    evaluation_runtime: 'both',
    filters: { groups: [{ properties: [{ key: String(ids.base), type: 'flag', value: true, operator: 'flag_evaluates_to' }], rollout_percentage: 100 }] },
  });
  await flag('grandchild', {
    evaluation_runtime: 'server',
    filters: { groups: [{ properties: [{ key: String(ids.child), type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] },
  });
  await flag('remote', { is_remote_configuration: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"r":1}' } } });
  await flag('gone', {});
  await patchFlag(t, ids.gone, { deleted: true });
});
after(() => t.close());

const get = (url: string, headers: Record<string, string> = {}, key: string | null = null) =>
  t.app.inject({ method: 'GET', url, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });

const PATHS = () => [
  `/flags/definitions?token=${t.token}&send_cohorts`,
  `/api/feature_flag/local_evaluation?token=${t.token}&send_cohorts`,
  `/api/projects/${t.projectId}/feature_flags/local_evaluation?send_cohorts`,
  `/api/projects/@current/feature_flags/local_evaluation/?send_cohorts`,
];

describe('flag definitions', () => {
  test('every path, with a personal key and with the secret token: the same body, ETag and cache headers', async () => {
    const bodies = new Set<string>();
    for (const url of PATHS()) {
      for (const key of [t.key, t.secret]) {
        const response = await get(url, {}, key);
        assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
        assert.match(String(response.headers.etag), /^W\/"[0-9a-f]{32}"$/);
        assert.equal(response.headers['cache-control'], 'private, must-revalidate');
        bodies.add(response.body);
      }
    }
    assert.equal(bodies.size, 1);
  });

  test('the body: live flags (inactive ones too), minimal shape, dependencies by key, cohorts used', async () => {
    const body = (await get(PATHS()[0], {}, t.key)).json();
    const keys = body.flags.map((f: Json) => f.key);
    assert.deepEqual(keys, ['base', 'off', 'cohorts', 'child', 'grandchild']);
    const base = body.flags[0];
    assert.deepEqual(base, {
      id: ids.base,
      team_id: t.projectId,
      name: 'Base',
      key: 'base',
      filters: { groups: [{ properties: [], rollout_percentage: 30 }], payloads: { true: '{"x":1}' } },
      deleted: false,
      active: true,
      ensure_experience_continuity: false,
      has_encrypted_payloads: false,
      version: 1,
      evaluation_runtime: 'all',
      bucketing_identifier: 'distinct_id',
      evaluation_tags: [],
      evaluation_contexts: [],
      rollout_percentage: 30,
      has_experiment: false,
    });
    assert.equal(body.flags[1].active, false);
    const child = body.flags.find((f: Json) => f.key === 'child');
    assert.equal(child.evaluation_runtime, 'all', 'both is served as all');
    assert.deepEqual(child.filters.groups[0].properties[0], {
      key: 'base', type: 'flag', value: true, operator: 'flag_evaluates_to', dependency_chain: ['base'],
    });
    const grandchild = body.flags.find((f: Json) => f.key === 'grandchild');
    assert.equal(grandchild.evaluation_runtime, 'server');
    assert.deepEqual(grandchild.filters.groups[0].properties[0].dependency_chain, ['base', 'child']);
    assert.deepEqual(body.group_type_mapping, { 0: 'company', 1: 'team' });
    // Dynamic cohorts used (nested included); the static one never.
    assert.deepEqual(Object.keys(body.cohorts).sort(), [String(dynamicCohort), String(nestedCohort)].sort());
    assert.equal(body.cohorts[String(dynamicCohort)].type, 'OR');
  });

  test('without send_cohorts (or send_cohorts=false): no cohorts, flags unchanged', async () => {
    for (const url of [`/flags/definitions?token=${t.token}`, `/flags/definitions?token=${t.token}&send_cohorts=false`]) {
      const body = (await get(url, {}, t.key)).json();
      assert.deepEqual(body.cohorts, {});
      assert.equal(body.flags.find((f: Json) => f.key === 'cohorts').filters.groups[0].properties[0].value, dynamicCohort);
    }
    assert.notEqual(Object.keys((await get(`/flags/definitions?token=${t.token}&send_cohorts=true`, {}, t.key)).json().cohorts).length, 0);
  });

  test('If-None-Match with the current ETag → 304 with no body; a change gives a new ETag', async () => {
    const url = PATHS()[0];
    const first = await get(url, {}, t.key);
    const etag = String(first.headers.etag);
    const again = await get(url, { 'if-none-match': etag }, t.key);
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    assert.equal(again.headers.etag, etag);
    assert.equal((await get(url, { 'if-none-match': etag.replace(/^W\//, '') }, t.key)).statusCode, 304);
    assert.equal((await get(url, { 'if-none-match': 'W/"other"' }, t.key)).statusCode, 200);

    await patchFlag(t, ids.base, { filters: { groups: [{ properties: [], rollout_percentage: 40 }] } });
    const changed = await get(url, { 'if-none-match': etag }, t.key);
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.equal(changed.json().flags[0].filters.groups[0].rollout_percentage, 40);
  });

  test('Accept-Encoding: gzip → the same bytes gzipped once per version, with the same ETag; others get them plain', async () => {
    const url = PATHS()[0];
    const plain = await get(url, {}, t.key);
    assert.ok(plain.rawPayload.length >= 1024, 'the test body is large enough to be compressed');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'accept-encoding');
    // The first gzip-accepting request starts the compression (off the event loop); the answers after it are gzipped.
    const zipped = await eventually(
      'a gzipped answer',
      () => get(url, { 'accept-encoding': 'br, gzip;q=0.8' }, t.key),
      (response) => response.headers['content-encoding'] === 'gzip',
    );
    assert.equal(zipped.statusCode, 200);
    assert.equal(zipped.headers.etag, plain.headers.etag);
    assert.ok(zipped.rawPayload.length < plain.rawPayload.length);
    assert.deepEqual(gunzipSync(zipped.rawPayload), plain.rawPayload);
    const again = await get(url, { 'accept-encoding': 'gzip' }, t.key);
    assert.deepEqual(again.rawPayload, zipped.rawPayload);
    assert.equal((await get(url, { 'accept-encoding': 'gzip;q=0, deflate' }, t.key)).headers['content-encoding'], undefined);
    assert.equal((await get(url, { 'accept-encoding': 'gzip', 'if-none-match': String(plain.headers.etag) }, t.key)).statusCode, 304);

    await patchFlag(t, ids.base, { name: 'Base renamed for gzip' });
    const changed = await eventually(
      'the new version gzipped',
      () => get(url, { 'accept-encoding': 'gzip' }, t.key),
      (response) => response.headers['content-encoding'] === 'gzip',
    );
    assert.notEqual(changed.headers.etag, plain.headers.etag);
    assert.match(gunzipSync(changed.rawPayload).toString(), /Base renamed for gzip/);
  });

  test('cohort and group-type changes heard as notices refresh the definitions', async () => {
    const url = PATHS()[0];
    const before = await get(url, {}, t.key);
    await t.db.pool.query(`UPDATE cohorts SET filters = $2 WHERE id = $1`, [
      nestedCohort,
      JSON.stringify({ properties: { type: 'AND', values: [person('country', 'exact', 'fr')] } }),
    ]);
    await notifyChange(t, { kind: 'cohort', projectId: t.projectId, id: nestedCohort });
    await eventually('cohort change seen', async () => (await get(url, {}, t.key)).json().cohorts[String(nestedCohort)].values[0].value === 'fr');
    assert.notEqual((await get(url, {}, t.key)).headers.etag, before.headers.etag);

    await t.db.pool.query(`INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES ($1, 'region', 2)`, [t.projectId]);
    await notifyChange(t, { kind: 'group_types', projectId: t.projectId });
    await eventually('group type seen', async () => (await get(url, {}, t.key)).json().group_type_mapping['2'] === 'region');
  });

  test('authentication: 401 without or with a bad key, 403 without the scope or the project', async () => {
    const url = `/flags/definitions?token=${t.token}`;
    const none = await get(url);
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().code, 'not_authenticated');
    assert.equal((await get(url, {}, 'phx_wrong')).statusCode, 401);
    assert.equal((await get(url, {}, 'phs_wrong')).statusCode, 401);
    assert.equal((await get(`/flags/definitions?token=phc_unknown`, {}, t.key)).statusCode, 401);

    const made = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'no flags', scopes: ['survey:read'] } });
    const noScope = made.json().value;
    const denied = await get(url, {}, noScope);
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().detail, "API key missing required scope 'feature_flag:read'");
    const readKey = (await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'read', scopes: ['feature_flag:read'] } })).json().value;
    assert.equal((await get(url, {}, readKey)).statusCode, 200);

    // Another organization's project: the key cannot reach it; the secret token of project 1 does not fit it.
    const { rows } = await t.db.pool.query<{ id: string }>(`INSERT INTO organizations (name) VALUES ('Other') RETURNING id`);
    const other = (await inUnit(t.db.pool, (tx) => insertProject(tx, { organizationId: rows[0].id, name: 'Elsewhere' }))).project;
    assert.equal((await get(`/flags/definitions?token=${other.api_token}`, {}, t.key)).statusCode, 403);
    assert.equal((await get(`/api/projects/${other.id}/feature_flags/local_evaluation`, {}, t.key)).statusCode, 403);
    assert.equal((await get(`/flags/definitions?token=${other.api_token}`, {}, t.secret)).statusCode, 403);
    assert.equal((await get(`/api/projects/${other.id}/feature_flags/local_evaluation`, {}, t.secret)).statusCode, 403);
    assert.equal((await get(`/api/projects/99999/feature_flags/local_evaluation`, {}, t.key)).statusCode, 404);
    // The secret token alone names its project.
    assert.equal((await get('/flags/definitions', {}, t.secret)).statusCode, 200);
  });

  test('only GET', async () => {
    for (const url of ['/flags/definitions', `/api/projects/${t.projectId}/feature_flags/local_evaluation`]) {
      const response = await t.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${t.key}` }, payload: {} });
      assert.equal(response.statusCode, 405, url);
      assert.match(String(response.headers.allow), /^GET/);
    }
  });
});
