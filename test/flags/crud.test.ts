import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertValidation, createFlag, flagsUrl, getFlag, patchFlag, type Json } from './flag-client.ts';

const SEED_FIELDS = [
  // writable
  'name', 'key', 'filters', 'deleted', 'active', 'created_at', 'version', 'ensure_experience_continuity',
  'rollback_conditions', 'performed_rollback', 'tags', 'evaluation_tags', 'analytics_dashboards',
  'has_enriched_analytics', 'creation_context', 'is_remote_configuration', 'has_encrypted_payloads',
  'evaluation_runtime', 'bucketing_identifier', 'last_called_at', '_create_in_folder', '_should_create_usage_dashboard',
  // response-only
  'id', 'created_by', 'updated_at', 'last_modified_by', 'is_simple_flag', 'rollout_percentage', 'experiment_set',
  'surveys', 'features', 'can_edit', 'usage_dashboard', 'user_access_level', 'status',
];

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

describe('create', () => {
  test('answers 201 with every field of a flag, version 1 and derived fields', async () => {
    const flag = await createFlag(t, {
      key: 'new-checkout',
      name: 'New checkout',
      filters: { groups: [{ properties: [], rollout_percentage: 30 }] },
      version: 17,
    });
    for (const field of SEED_FIELDS) assert.ok(field in flag, `missing ${field}`);
    assert.equal(flag.version, 1);
    assert.equal(flag.key, 'new-checkout');
    assert.equal(flag.is_simple_flag, true);
    assert.equal(flag.rollout_percentage, 30);
    assert.equal(flag.status, 'active');
    assert.equal(flag.active, true);
    assert.equal(flag.deleted, false);
    assert.equal(flag.creation_context, 'feature_flags');
    assert.equal(flag._should_create_usage_dashboard, true);
    assert.equal(flag._create_in_folder, null);
    assert.equal(flag.evaluation_runtime, 'all');
    assert.equal(typeof flag.usage_dashboard, 'number');
    const insights = await t.db.pool.query('SELECT name FROM insights WHERE dashboard_id = $1 ORDER BY name', [flag.usage_dashboard]);
    assert.deepEqual(
      insights.rows.map((r) => r.name),
      ['Feature Flag Called Total Volume', 'Feature Flag calls made by unique users per variant'],
    );
    assert.deepEqual(flag.experiment_set, []);
    assert.equal(flag.can_edit, true);
    assert.equal(flag.user_access_level, 'manager');
    assert.match(String(flag.created_at), /Z$/);
    const creator = flag.created_by as Json;
    assert.equal(creator.email, 'admin@bellwether.local');
    for (const field of ['id', 'uuid', 'distinct_id', 'first_name', 'last_name', 'email', 'is_email_verified', 'hedgehog_config', 'role_at_organization']) {
      assert.ok(field in creator, `created_by.${field}`);
    }
  });

  test('a flag with properties is not simple and has no rollout_percentage', async () => {
    const flag = await createFlag(t, {
      key: 'with-props',
      filters: { groups: [{ properties: [{ key: 'email', value: 'a@b.c', operator: 'exact', type: 'person' }], rollout_percentage: 100 }] },
    });
    assert.equal(flag.is_simple_flag, false);
    assert.equal(flag.rollout_percentage, null);
  });

  test('a flag created without filters reads as one group on for everyone', async () => {
    const flag = await createFlag(t, { key: 'no-filters' });
    assert.deepEqual(flag.filters, { groups: [{ properties: [], rollout_percentage: null }] });
    assert.equal(flag.is_simple_flag, true);
    assert.equal(flag.rollout_percentage, null);
  });

  test('condition sets with a variant override are stored first, the rest in the order sent', async () => {
    const plain1 = { properties: [{ key: 'plan', value: 'free', type: 'person', operator: 'exact' }], rollout_percentage: 10 };
    const plain2 = { properties: [], rollout_percentage: 20 };
    const override = { properties: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }], rollout_percentage: 100, variant: 'b' };
    const flag = await createFlag(t, {
      key: 'ordered-conditions',
      filters: {
        groups: [plain1, override, plain2],
        multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
      },
    });
    assert.deepEqual((flag.filters as Json).groups, [override, plain1, plain2]);
  });

  test('a POST with no body at all is read as an empty object', async () => {
    const response = await t.request({ method: 'POST', url: flagsUrl() });
    assertValidation(response, 'This field is required.', 'key', 'required');
  });

  test('honours created_at, tags (normalised) and _should_create_usage_dashboard false', async () => {
    const flag = await createFlag(t, {
      key: 'imported',
      created_at: '2020-01-02T03:04:05+02:00',
      tags: [' Beta ', 'beta', 'Growth'],
      evaluation_tags: ['growth'],
      _should_create_usage_dashboard: false,
      _create_in_folder: 'Imports',
      evaluation_runtime: 'both',
      bucketing_identifier: 'device_id',
    });
    assert.equal(flag.created_at, '2020-01-02T01:04:05.000Z');
    assert.deepEqual(flag.tags, ['beta', 'growth']);
    assert.deepEqual(flag.evaluation_tags, ['growth']);
    assert.equal(flag.usage_dashboard, null);
    assert.equal(flag._should_create_usage_dashboard, false);
    assert.equal(flag._create_in_folder, 'Imports');
    assert.equal(flag.evaluation_runtime, 'both');
    assert.equal(flag.bucketing_identifier, 'device_id');
  });

  test('writes a created activity entry in the same transaction', async () => {
    const flag = await createFlag(t, { key: 'audited' });
    const { rows } = await t.db.pool.query('SELECT activity, detail FROM activity_log WHERE scope = $1 AND item_id = $2', ['FeatureFlag', String(flag.id)]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].activity, 'created');
    assert.deepEqual(rows[0].detail.changes, []);
    assert.equal(rows[0].detail.name, 'audited');
  });

  test('rejects a missing key, a blank key, a too long key', async () => {
    assertValidation(await t.request({ method: 'POST', url: flagsUrl(), payload: { name: 'x' } }), 'This field is required.', 'key', 'required');
    assertValidation(await t.request({ method: 'POST', url: flagsUrl(), payload: { key: '' } }), 'This field may not be blank.', 'key', 'blank');
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'k'.repeat(401) } }),
      'Ensure this field has no more than 400 characters.',
      'key',
      'max_length',
    );
  });

  test('rejects a key with illegal characters', async () => {
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'has space' } }),
      'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
      'key',
      'invalid_key',
    );
  });

  test('a duplicate key is reported as unique before its format', async () => {
    await createFlag(t, { key: 'dup-key' });
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'dup-key' } }),
      'There is already a feature flag with this key.',
      'key',
      'unique',
    );
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM feature_flags WHERE key = 'dup-key'");
    assert.equal(rows[0].n, 1);
  });

  test('a duplicate key is reported as unique before a fault of its filters; a key freed by a delete can be taken', async () => {
    const first = await createFlag(t, { key: 'dup-before-filters' });
    const invalidFilters = { groups: [{ properties: [], rollout_percentage: 150 }] };
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'dup-before-filters', filters: invalidFilters } }),
      'There is already a feature flag with this key.',
      'key',
      'unique',
    );
    const invalid = await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'free-key-bad-filters', filters: invalidFilters } });
    assert.equal(invalid.statusCode, 400);
    assert.notEqual(invalid.json().code, 'unique');
    assert.equal((await patchFlag(t, first.id, { deleted: true })).statusCode, 200);
    const again = await createFlag(t, { key: 'dup-before-filters' });
    assert.notEqual(again.id, first.id);
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM feature_flags WHERE key = 'dup-before-filters' AND NOT deleted");
    assert.equal(rows[0].n, 1);
  });

  test('rejects wrong types naming the field, never a 500', async () => {
    assertValidation(await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'x1', active: 'sure' } }), 'Must be a valid boolean.', 'active');
    assertValidation(await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 5 } }), 'Not a valid string.', 'key');
    assertValidation(await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'x2', tags: 'a' } }), 'Expected a list of items but got type "str".', 'tags', 'not_a_list');
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'x3', created_at: '2024-01-01 10:00' } }),
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      'created_at',
    );
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'x4', analytics_dashboards: [2147483648] } }),
      'Ensure this value is less than or equal to 2147483647.',
      'analytics_dashboards__0',
      'max_value',
    );
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'x5', analytics_dashboards: [999] } }),
      'Invalid pk "999" - object does not exist.',
      'analytics_dashboards',
      'does_not_exist',
    );
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'x6', evaluation_runtime: 'edge' } }),
      '"edge" is not a valid choice.',
      'evaluation_runtime',
      'invalid_choice',
    );
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'x7', tags: ['a'], evaluation_tags: ['b', 'c'] } }),
      'Evaluation tags must be a subset of tags. Invalid evaluation tags: b, c',
      null,
    );
    assertValidation(
      await t.request({ method: 'POST', url: flagsUrl(), payload: { key: 'x8', creation_context: 'somewhere' } }),
      '"somewhere" is not a valid choice.',
      'creation_context',
      'invalid_choice',
    );
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM feature_flags WHERE key LIKE 'x_'");
    assert.equal(rows[0].n, 0);
  });

  test('malformed JSON is a 400 parse_error and a non-JSON content type a 415', async () => {
    const bad = await t.request({ method: 'POST', url: flagsUrl(), payload: '{"key": ', headers: { 'content-type': 'application/json' } });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().type, 'invalid_request');
    assert.equal(bad.json().code, 'parse_error');
    const text = await t.request({ method: 'POST', url: flagsUrl(), payload: 'key=a', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.statusCode, 415);
    assert.equal(text.json().type, 'invalid_request');
  });
});

describe('retrieve', () => {
  test('answers the flag with an ETag of its version, with and without the trailing slash', async () => {
    const flag = await createFlag(t, { key: 'fetch-me' });
    const withSlash = await getFlag(t, flag.id);
    assert.equal(withSlash.statusCode, 200);
    assert.equal(withSlash.headers.etag, '"1"');
    assert.deepEqual(withSlash.json(), flag);
    const withoutSlash = await t.request({ method: 'GET', url: `${flagsUrl()}${flag.id}` });
    assert.equal(withoutSlash.statusCode, 200);
    assert.equal(withoutSlash.json().key, 'fetch-me');
  });

  test('unknown, malformed and out-of-range ids are 404 with the contract body', async () => {
    for (const id of ['999999', 'abc', '99999999999', '-1']) {
      const response = await getFlag(t, id);
      assert.equal(response.statusCode, 404, id);
      assert.deepEqual(response.json(), { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    }
  });

  test('a flag of another project is 404 there', async () => {
    const flag = await createFlag(t, { key: 'only-in-one' });
    const project = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: 'Second' } });
    assert.equal(project.statusCode, 201, project.body);
    const other = project.json().id;
    const response = await t.request({ method: 'GET', url: `/api/projects/${other}/feature_flags/${flag.id}/` });
    assert.equal(response.statusCode, 404);
  });

  test('answered early (retrieve, a plain page) or by the handler (a filtered list), the flag and the headers are the same', async () => {
    const flag = await createFlag(t, { key: 'early-or-not', name: 'Both ways' });
    const early = await getFlag(t, flag.id);
    const page = await t.request({ method: 'GET', url: `${flagsUrl()}?limit=500&offset=0` });
    const filtered = await t.request({ method: 'GET', url: `${flagsUrl()}?key=early-or-not` });
    for (const response of [early, page, filtered]) {
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.match(String(response.headers['x-request-id']), /.+/);
      assert.equal(response.headers['content-length'], String(response.rawPayload.length));
    }
    const inPage = (page.json().results as Json[]).find((item) => item.id === flag.id);
    assert.deepEqual(early.json(), flag);
    assert.deepEqual(inPage, flag);
    assert.deepEqual(filtered.json().results, [flag]);
    // A page query the schema refuses, or one it has to coerce, still gets the route's answer.
    for (const [query, status] of [['limit=0', 400], ['limit=abc', 400], ['offset=-1', 400], ['limit=1&limit=2', 400], ['limit=99999999999', 400]] as const) {
      const response = await t.request({ method: 'GET', url: `${flagsUrl()}?${query}` });
      assert.equal(response.statusCode, status, `${query}: ${response.body}`);
      assert.equal(response.json().type, 'validation_error', query);
    }
    // HEAD is Fastify's: headers, no body.
    const head = await t.request({ method: 'HEAD', url: `${flagsUrl()}${flag.id}/` });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  test('@current addresses the caller’s project', async () => {
    const flag = await createFlag(t, { key: 'current-one' });
    const response = await t.request({ method: 'GET', url: `/api/projects/@current/feature_flags/${flag.id}/` });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().key, 'current-one');
  });
});

describe('delete', () => {
  test('DELETE answers 405 with an empty body and an Allow header, and deletes nothing', async () => {
    const flag = await createFlag(t, { key: 'undeletable' });
    const response = await t.request({ method: 'DELETE', url: `${flagsUrl()}${flag.id}/` });
    assert.equal(response.statusCode, 405);
    assert.equal(response.body, '');
    assert.match(String(response.headers.allow), /PATCH/);
    const still = await getFlag(t, flag.id);
    assert.equal(still.json().deleted, false);
  });

  test('methods a path does not offer are 405 with Allow, after authentication', async () => {
    const flag = await createFlag(t, { key: 'no-put' });
    const putList = await t.request({ method: 'PUT', url: flagsUrl(), payload: { key: 'no-put' } });
    assert.equal(putList.statusCode, 405);
    assert.equal(putList.json().type, 'invalid_request');
    assert.match(String(putList.headers.allow), /POST/);
    const deleteList = await t.request({ method: 'DELETE', url: flagsUrl() });
    assert.equal(deleteList.statusCode, 405);
    const anonymous = await t.request({ method: 'PUT', url: `${flagsUrl()}${flag.id}/`, key: null });
    assert.equal(anonymous.statusCode, 401);
  });

  test('PUT is a full update (DRF): key required, the fields sent written, the others kept', async () => {
    const flag = await createFlag(t, { key: 'put-me', name: 'Before', tags: ['x'], filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    assertValidation(await t.request({ method: 'PUT', url: `${flagsUrl()}${flag.id}/`, payload: { name: 'No key' } }), 'This field is required.', 'key', 'required');
    const put = await t.request({ method: 'PUT', url: `${flagsUrl()}${flag.id}/`, payload: { key: 'put-me', name: 'After', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } } });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json().name, 'After');
    assert.equal(put.json().rollout_percentage, 50);
    assert.deepEqual(put.json().tags, ['x']);
    assert.equal(put.json().version, 2);
    assert.equal((await t.request({ method: 'PUT', url: `${flagsUrl()}999999/`, payload: { key: 'put-me' } })).statusCode, 404);
  });

  test('DELETE of an unknown id is 405 too (method rules come before the object)', async () => {
    const response = await t.request({ method: 'DELETE', url: `${flagsUrl()}424242/` });
    assert.equal(response.statusCode, 405);
    assert.equal(response.body, '');
  });

  test('soft delete keeps the row, hides it from the list, frees the key; restore brings it back', async () => {
    const flag = await createFlag(t, { key: 'soft' });
    const deleted = await patchFlag(t, flag.id, { deleted: true });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.equal(deleted.json().deleted, true);
    assert.equal(deleted.json().status, 'deleted');
    const list = await t.request({ method: 'GET', url: `${flagsUrl()}?search=soft` });
    assert.equal(list.json().count, 0);
    const read = await getFlag(t, flag.id);
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().deleted, true);

    const replacement = await createFlag(t, { key: 'soft' });
    assert.notEqual(replacement.id, flag.id);
    assertValidation(await patchFlag(t, flag.id, { deleted: false }), 'There is already a feature flag with this key.', 'key', 'unique');

    await patchFlag(t, replacement.id, { deleted: true });
    const restored = await patchFlag(t, flag.id, { deleted: false });
    assert.equal(restored.statusCode, 200);
    assert.equal(restored.json().deleted, false);
    const { rows } = await t.db.pool.query(
      'SELECT activity FROM activity_log WHERE item_id = $1 ORDER BY created_at',
      [String(flag.id)],
    );
    assert.deepEqual(rows.map((r) => r.activity), ['created', 'deleted', 'restored']);
  });
});
