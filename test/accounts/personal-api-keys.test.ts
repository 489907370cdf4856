import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey, createProject, currentOrganizationId, foreignOrganization, NOT_FOUND, otherUser, permissionDenied } from './support.ts';

const KEY_FIELDS = [
  'created_at',
  'id',
  'label',
  'last_rolled_at',
  'last_used_at',
  'mask_value',
  'scoped_organizations',
  'scoped_teams',
  'scopes',
  'user_id',
];

describe('personal API keys', () => {
  let t: TestApp;
  let organizationId: string;
  before(async () => {
    t = await startTestApp();
    organizationId = await currentOrganizationId(t);
  });
  after(() => t.close());

  test('create: 201 with the value, shown once; the value authenticates', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/personal_api_keys/',
      payload: { label: 'CI', scopes: ['project:read', 'project:read', 'survey:write'], scoped_teams: [1], scoped_organizations: [organizationId] },
    });
    assert.equal(res.statusCode, 201);
    const key = res.json();
    assert.deepEqual(Object.keys(key).sort(), [...KEY_FIELDS, 'value'].sort());
    assert.match(key.value, /^phx_[A-Za-z0-9_-]{43}$/);
    assert.equal(key.mask_value, `phx_...${key.value.slice(-4)}`);
    assert.equal(key.label, 'CI');
    assert.deepEqual(key.scopes, ['project:read', 'survey:write']);
    assert.deepEqual(key.scoped_teams, [1]);
    assert.deepEqual(key.scoped_organizations, [organizationId]);
    assert.equal(key.last_used_at, null);
    assert.match(key.created_at, /Z$/);

    const listed = await t.request({ method: 'GET', url: '/api/personal_api_keys/' });
    assert.equal(listed.statusCode, 200);
    assert.ok(!listed.body.includes(key.value), 'the listing never carries the value');
    const entry = listed.json().results.find((k: { id: string }) => k.id === key.id);
    assert.deepEqual(Object.keys(entry).sort(), KEY_FIELDS);
    assert.equal(entry.mask_value, key.mask_value);

    const one = await t.request({ method: 'GET', url: `/api/personal_api_keys/${key.id}/` });
    assert.equal(one.statusCode, 200);
    assert.equal(one.json().value, undefined);
    assert.ok(!one.body.includes(key.value));

    const used = await t.request({ method: 'GET', url: '/api/projects/1/', key: key.value });
    assert.equal(used.statusCode, 200);
    assert.equal(used.json().id, 1);
  });

  test('an unscoped key shows scoped_teams and scoped_organizations as [] (never null) wherever it is shown', async () => {
    const created = await createKey(t, { label: 'everywhere', scopes: ['feature_flag:read'], scoped_teams: null, scoped_organizations: [] });
    const reach = (key: Record<string, unknown>) => [key.scoped_teams, key.scoped_organizations];
    assert.deepEqual(reach(created.body), [[], []], 'create');
    const one = await t.request({ method: 'GET', url: `/api/personal_api_keys/${created.id}/` });
    assert.deepEqual(reach(one.json()), [[], []], 'retrieve');
    const listed = await t.request({ method: 'GET', url: '/api/personal_api_keys/?limit=1000' });
    for (const key of listed.json().results) {
      if (key.id === created.id) assert.deepEqual(reach(key), [[], []], 'list');
      for (const value of reach(key)) assert.ok(Array.isArray(value), `list: ${key.label}`);
    }
    const current = await t.request({ method: 'GET', url: '/api/personal_api_keys/@current/', key: created.value });
    assert.deepEqual(reach(current.json()), [[], []], '@current');
  });

  test('keys are stored hashed: no row holds the value', async () => {
    const key = await createKey(t, { label: 'hashed', scopes: ['*'] });
    const { rows } = await t.db.pool.query(
      'SELECT count(*)::int AS n FROM personal_api_keys k WHERE strpos(k::text, $1) > 0 OR strpos(k::text, $2) > 0',
      [key.value, key.value.slice(4)],
    );
    assert.equal(rows[0].n, 0);
    const stored = await t.db.pool.query('SELECT count(*)::int AS n FROM personal_api_keys WHERE id = $1', [key.id]);
    assert.equal(stored.rows[0].n, 1);
  });

  test('label and scopes are validated', async () => {
    const cases: [object, string, string][] = [
      [{ scopes: ['*'] }, 'label', 'required'],
      [{ label: '  ', scopes: ['*'] }, 'label', 'blank'],
      [{ label: 'x'.repeat(41), scopes: ['*'] }, 'label', 'max_length'],
      [{ label: 'ok' }, 'scopes', 'required'],
      [{ label: 'ok', scopes: [] }, 'scopes', 'required'],
      [{ label: 'ok', scopes: 'feature_flag:read' }, 'scopes', 'not_a_list'],
      [{ label: 'ok', scopes: ['feature_flag:read', 'flag:fly'] }, 'scopes', 'invalid_input'],
      [{ label: 'ok', scopes: ['feature_flag:delete'] }, 'scopes', 'invalid_input'],
      [{ label: 'ok', scopes: ['*'], scoped_teams: ['one'] }, 'scoped_teams__0', 'invalid_input'],
      [{ label: 'ok', scopes: ['*'], scoped_organizations: ['not-a-uuid'] }, 'scoped_organizations__0', 'invalid_input'],
    ];
    for (const [payload, attr, code] of cases) {
      const res = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      const body = res.json();
      assert.equal(body.type, 'validation_error', JSON.stringify(payload));
      assert.equal(body.attr, attr, JSON.stringify(payload));
      assert.equal(body.code, code, JSON.stringify(payload));
    }
    const unknown = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'ok', scopes: ['flag:fly'] } });
    assert.deepEqual(unknown.json(), { type: 'validation_error', code: 'invalid_input', detail: 'Invalid scope: flag:fly', attr: 'scopes' });
  });

  test('scoped_teams and scoped_organizations must be within the user\'s reach', async () => {
    const foreign = await foreignOrganization(t);
    for (const teams of [[foreign.projectId], [1, 999999]]) {
      const res = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'x', scopes: ['*'], scoped_teams: teams } });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'You must be a member of all teams that you are scoping the key to.',
        attr: 'scoped_teams',
      });
    }
    const res = await t.request({
      method: 'POST',
      url: '/api/personal_api_keys/',
      payload: { label: 'x', scopes: ['*'], scoped_organizations: [organizationId, foreign.organizationId] },
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'You must be a member of all organizations that you are scoping the key to.',
      attr: 'scoped_organizations',
    });
  });

  test('creating keys needs scope *; a key cannot mint a broader one', async () => {
    const limited = await createKey(t, { label: 'limited', scopes: ['feature_flag:write', 'user:read'] });
    const res = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'x', scopes: ['feature_flag:read'] }, key: limited.value });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), permissionDenied("API key missing required scope '*'"));

    const second = await createProject(t, { name: 'Second' });
    const scoped = await createKey(t, { label: 'star on project 1', scopes: ['*'], scoped_teams: [1] });
    for (const payload of [
      { label: 'wider', scopes: ['*'] },
      { label: 'elsewhere', scopes: ['*'], scoped_teams: [second.id] },
      { label: 'org-wide', scopes: ['*'], scoped_organizations: [organizationId] },
    ]) {
      const wider = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload, key: scoped.value });
      assert.equal(wider.statusCode, 403, payload.label);
      assert.deepEqual(wider.json(), permissionDenied('A new key cannot reach projects or organizations that this API key cannot.'));
    }
    const narrower = await createKey(t, { label: 'same project', scopes: ['feature_flag:read'], scoped_teams: [1] }, scoped.value);
    assert.deepEqual(narrower.body.scoped_teams, [1]);

    const byOrganization = await createKey(t, { label: 'org', scopes: ['*'], scoped_organizations: [organizationId] });
    const inOrg = await createKey(t, { label: 'in org', scopes: ['*'], scoped_teams: [second.id] }, byOrganization.value);
    assert.deepEqual(inOrg.body.scoped_teams, [second.id]);
    const unscoped = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'all', scopes: ['*'] }, key: byOrganization.value });
    assert.equal(unscoped.statusCode, 403);
  });

  test('delete: 204, and the key fails authentication at once', async () => {
    const key = await createKey(t, { label: 'to revoke', scopes: ['project:read'] });
    const before = await t.request({ method: 'GET', url: '/api/projects/1/', key: key.value });
    assert.equal(before.statusCode, 200);

    const res = await t.request({ method: 'DELETE', url: `/api/personal_api_keys/${key.id}/` });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');

    const afterDelete = await t.request({ method: 'GET', url: '/api/projects/1/', key: key.value });
    assert.equal(afterDelete.statusCode, 401);
    assert.equal(afterDelete.json().code, 'authentication_failed');
    const listed = await t.request({ method: 'GET', url: '/api/personal_api_keys/' });
    assert.ok(!listed.json().results.some((k: { id: string }) => k.id === key.id));
    const again = await t.request({ method: 'DELETE', url: `/api/personal_api_keys/${key.id}` });
    assert.equal(again.statusCode, 404);
    assert.deepEqual(again.json(), NOT_FOUND);
  });

  test("unknown, malformed and other users' keys → 404; deleting needs scope *", async () => {
    const other = await otherUser(t, organizationId, 'member');
    const othersKeys = await t.request({ method: 'GET', url: '/api/personal_api_keys/', key: other.key });
    assert.equal(othersKeys.json().count, 1);
    const othersKeyId = othersKeys.json().results[0].id;

    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', othersKeyId]) {
      const del = await t.request({ method: 'DELETE', url: `/api/personal_api_keys/${id}/` });
      assert.equal(del.statusCode, 404, id);
      assert.deepEqual(del.json(), NOT_FOUND);
      const get = await t.request({ method: 'GET', url: `/api/personal_api_keys/${id}/` });
      assert.equal(get.statusCode, 404, id);
    }
    const stillWorks = await t.request({ method: 'GET', url: '/api/projects/1/', key: other.key });
    assert.equal(stillWorks.statusCode, 200);

    const reader = await createKey(t, { label: 'reader', scopes: ['user:read'] });
    const denied = await t.request({ method: 'DELETE', url: `/api/personal_api_keys/${reader.id}/`, key: reader.value });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), permissionDenied("API key missing required scope '*'"));
  });

  test('the listing holds only the caller\'s keys, newest first', async () => {
    const res = await t.request({ method: 'GET', url: '/api/personal_api_keys/' });
    assert.equal(res.statusCode, 200);
    const results = res.json().results as { user_id: number; created_at: string; label: string }[];
    assert.equal(res.json().count, results.length);
    assert.ok(results.every((k) => k.user_id === 1));
    const times = results.map((k) => k.created_at);
    assert.deepEqual([...times].sort().reverse(), times);
    assert.equal(results.at(-1)!.label, 'INIT_API_KEY');
  });
});
