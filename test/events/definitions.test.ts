import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { otherProject } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { currentOrganizationId, foreignOrganization, otherUser } from '../accounts/support.ts';
import {
  NOT_FOUND,
  assertValidation,
  createDefinition,
  definitionsUrl,
  getDefinition,
  groupsUrl,
  eventSchemasUrl,
  insertDefinitionRow,
  keyWith,
  missingScope,
  secondProject,
  type Json,
} from './definitions-support.ts';

const FIELDS = [
  'id', 'name', 'owner', 'description', 'tags', 'created_at', 'updated_at', 'updated_by', 'last_seen_at', 'verified',
  'verified_at', 'verified_by', 'hidden', 'enforcement_mode', 'primary_property', 'is_action', 'post_to_slack', 'default_columns',
];

let t: TestApp;
let adminId: number;
before(async () => {
  t = await startTestApp();
  adminId = (await t.request({ method: 'GET', url: '/api/users/@me/' })).json().id;
});
after(async () => {
  await t.close();
});

const url = (id = '') => `${definitionsUrl(t.projectId)}${id ? `${id}/` : ''}`;
const patch = (id: string, body: Json, key?: string) => t.request({ method: 'PATCH', url: url(id), payload: body, key });

async function activities(itemId: string): Promise<{ activity: string; user_id: number | null; detail: Json }[]> {
  const { rows } = await t.db.pool.query(
    `SELECT activity, user_id, detail FROM activity_log WHERE scope = 'EventDefinition' AND item_id = $1 ORDER BY created_at`,
    [itemId],
  );
  return rows;
}

describe('create', () => {
  test('answers 201 with no body and an absolute Location of the new definition', async () => {
    const response = await t.request({ method: 'POST', url: url(), payload: { name: 'purchase' } });
    assert.equal(response.statusCode, 201);
    assert.equal(response.body, '');
    assert.equal(response.headers['content-length'], '0');
    const location = new URL(String(response.headers.location));
    assert.equal(location.origin, 'http://localhost');
    assert.match(location.pathname, /^\/api\/projects\/1\/event_definitions\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/$/);

    const follow = await t.request({ method: 'GET', url: location.pathname });
    assert.equal(follow.statusCode, 200);
    const body = follow.json();
    assert.deepEqual(Object.keys(body), FIELDS);
    assert.equal(body.name, 'purchase');
    assert.equal(body.created_at, null);
    assert.equal(body.last_seen_at, null);
    assert.equal(body.owner, null);
    assert.equal(body.description, '');
    assert.deepEqual(body.tags, []);
    assert.equal(body.updated_by.id, adminId);
    assert.match(body.updated_at, /Z$/);
    assert.equal(body.verified, false);
    assert.equal(body.verified_at, null);
    assert.equal(body.verified_by, null);
    assert.equal(body.hidden, false);
    assert.equal(body.enforcement_mode, 'allow');
    assert.equal(body.primary_property, null);
    assert.equal(body.is_action, false);
    assert.equal(body.post_to_slack, false);
    assert.deepEqual(body.default_columns, []);
  });

  test('@current in the path gives a Location with the numeric project id', async () => {
    const response = await t.request({ method: 'POST', url: definitionsUrl('@current'), payload: { name: 'via current' } });
    assert.equal(response.statusCode, 201);
    assert.match(String(response.headers.location), /\/api\/projects\/1\/event_definitions\//);
  });

  test('created_at and last_seen_at sent are ignored: both stay null', async () => {
    const id = await createDefinition(t, { name: 'imported', created_at: '2020-01-01T00:00:00Z', last_seen_at: '2020-01-01T00:00:00Z' });
    const { rows } = await t.db.pool.query('SELECT created_at, last_seen_at FROM event_definitions WHERE id = $1', [id]);
    assert.deepEqual(rows[0], { created_at: null, last_seen_at: null });
  });

  test('takes the writable fields: tags normalised, description, default_columns, enforcement_mode, primary_property', async () => {
    const id = await createDefinition(t, {
      name: 'signed up',
      description: 'A sign-up',
      tags: [' Growth ', 'growth', 'Core', ''],
      default_columns: ['person', 'url'],
      enforcement_mode: 'reject',
      primary_property: 'plan',
      post_to_slack: true,
    });
    const body = await getDefinition(t, id);
    assert.equal(body.description, 'A sign-up');
    assert.deepEqual(body.tags, ['growth', 'core']);
    assert.deepEqual(body.default_columns, ['person', 'url']);
    assert.equal(body.enforcement_mode, 'reject');
    assert.equal(body.primary_property, 'plan');
    assert.equal(body.post_to_slack, false);
  });

  test('the name is trimmed, required, not blank, at most 400 characters', async () => {
    const id = await createDefinition(t, { name: '  spaced out  ' });
    assert.equal((await getDefinition(t, id)).name, 'spaced out');
    assertValidation(await t.request({ method: 'POST', url: url(), payload: {} }), 'This field is required.', 'name', 'required');
    assertValidation(await t.request({ method: 'POST', url: url(), payload: { name: '' } }), 'This field may not be blank.', 'name', 'blank');
    assertValidation(await t.request({ method: 'POST', url: url(), payload: { name: '   ' } }), 'This field may not be blank.', 'name', 'blank');
    assertValidation(
      await t.request({ method: 'POST', url: url(), payload: { name: 'n'.repeat(401) } }),
      'Ensure this field has no more than 400 characters.',
      'name',
      'max_length',
    );
    assertValidation(await t.request({ method: 'POST', url: url(), payload: { name: 42 } }), 'Not a valid string.', 'name');
    assertValidation(await t.request({ method: 'POST', url: url(), payload: { name: 'nul\u0000name' } }), 'Null characters are not allowed.', 'name');
    await createDefinition(t, { name: 'n'.repeat(400) });
  });

  test('a duplicate name is a 400 on name, and nothing is written', async () => {
    await createDefinition(t, { name: 'dup' });
    assertValidation(
      await t.request({ method: 'POST', url: url(), payload: { name: 'dup' } }),
      "Event definition with name 'dup' already exists",
      'name',
      'invalid_input',
    );
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM event_definitions WHERE project_id = $1 AND name = 'dup'", [t.projectId]);
    assert.equal(rows[0].n, 1);
    // Names are per project.
    const other = await secondProject(t);
    await createDefinition(t, { name: 'dup' }, other);
  });

  test('verified: true stamps who and when; hidden: true leaves it unverified; both → 400', async () => {
    const verified = await getDefinition(t, await createDefinition(t, { name: 'verified at birth', verified: true }));
    assert.equal(verified.verified, true);
    assert.equal(verified.verified_by.id, adminId);
    assert.match(verified.verified_at, /Z$/);
    assert.equal(verified.hidden, false);

    const hidden = await getDefinition(t, await createDefinition(t, { name: 'hidden at birth', hidden: true }));
    assert.equal(hidden.hidden, true);
    assert.equal(hidden.verified, false);
    assert.equal(hidden.verified_by, null);

    assertValidation(
      await t.request({ method: 'POST', url: url(), payload: { name: 'both', verified: true, hidden: true } }),
      'An event cannot be both hidden and verified',
      null,
    );
    const { rowCount } = await t.db.pool.query("SELECT 1 FROM event_definitions WHERE name = 'both'");
    assert.equal(rowCount, 0);
  });

  test('writes one created activity entry with the name change', async () => {
    const id = await createDefinition(t, { name: 'audited create' });
    const entries = await activities(id);
    assert.equal(entries.length, 1);
    assert.equal(entries[0].activity, 'created');
    assert.equal(entries[0].user_id, adminId);
    assert.equal(entries[0].detail.name, 'audited create');
    assert.deepEqual(entries[0].detail.changes, [
      { type: 'EventDefinition', action: 'created', field: 'name', before: null, after: 'audited create' },
    ]);
  });
});

describe('retrieve', () => {
  test('a non-UUID id, an unknown UUID and another project\'s definition are all 404', async () => {
    for (const id of ['undefined', '123', 'not-a-uuid', '00000000-0000-0000-0000-000000000000']) {
      const response = await t.request({ method: 'GET', url: url(id) });
      assert.equal(response.statusCode, 404, id);
      assert.deepEqual(response.json(), NOT_FOUND);
    }
    const other = await secondProject(t);
    const foreignId = await createDefinition(t, { name: 'elsewhere' }, other);
    assert.equal((await t.request({ method: 'GET', url: url(foreignId) })).statusCode, 404);
    assert.equal((await t.request({ method: 'GET', url: `${definitionsUrl(other)}${foreignId}/` })).statusCode, 200);
  });

  test('reading an ingested definition writes nothing (no row, no stamp)', async () => {
    const id = await insertDefinitionRow(t, { name: 'ingested only', last_seen_at: '2024-03-01T10:00:00Z' });
    const before = await t.db.pool.query('SELECT * FROM event_definitions WHERE id = $1', [id]);
    const count = async () => (await t.db.pool.query('SELECT count(*)::int AS n FROM event_definitions')).rows[0].n;
    const rowsBefore = await count();
    const body = await getDefinition(t, id);
    assert.equal(body.description, '');
    assert.equal(body.last_seen_at, '2024-03-01T10:00:00.000Z');
    assert.equal(body.created_at, '2024-03-01T10:00:00.000Z');
    assert.equal(await count(), rowsBefore);
    const afterRead = await t.db.pool.query('SELECT * FROM event_definitions WHERE id = $1', [id]);
    assert.deepEqual(afterRead.rows[0], before.rows[0]);
  });
});

describe('update', () => {
  test('changes the writable fields; name is ignored; updated_at and updated_by on every save', async () => {
    const id = await createDefinition(t, { name: 'editable' });
    const first = await getDefinition(t, id);
    const org = await currentOrganizationId(t);
    const editor = await otherUser(t, org, 'member');

    const response = await patch(id, { name: 'renamed', description: 'Now described', tags: ['B', ' a ', 'b'], primary_property: 'sku' }, editor.key);
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body), FIELDS);
    assert.equal(body.name, 'editable');
    assert.equal(body.description, 'Now described');
    assert.deepEqual(body.tags, ['b', 'a']);
    assert.equal(body.primary_property, 'sku');
    assert.equal(body.updated_by.id, editor.userId);
    assert.ok(body.updated_at > first.updated_at);

    // An empty PATCH still stamps.
    const again = (await patch(id, {})).json();
    assert.equal(again.updated_by.id, adminId);
    assert.ok(again.updated_at > body.updated_at);
    assert.equal(again.description, 'Now described');
  });

  test('owner is a user id of the organization, answered as a user; others are refused', async () => {
    const id = await createDefinition(t, { name: 'owned' });
    const org = await currentOrganizationId(t);
    const member = await otherUser(t, org, 'member');
    const owned = await patch(id, { owner: member.userId });
    assert.equal(owned.statusCode, 200, owned.body);
    assert.equal(owned.json().owner.id, member.userId);
    assert.deepEqual(Object.keys(owned.json().owner), [
      'id', 'uuid', 'distinct_id', 'first_name', 'last_name', 'email', 'is_email_verified', 'hedgehog_config', 'role_at_organization',
    ]);

    const foreign = await foreignOrganization(t);
    const stranger = await otherUser(t, foreign.organizationId, 'owner');
    assertValidation(await patch(id, { owner: stranger.userId }), 'Owner must be a member of this organization', 'owner');
    assertValidation(await patch(id, { owner: 999999 }), 'Invalid pk "999999" - object does not exist.', 'owner', 'does_not_exist');
    assertValidation(await patch(id, { owner: 'me' }), 'A valid integer is required.', 'owner');
    assert.equal((await getDefinition(t, id)).owner.id, member.userId);

    assert.equal((await patch(id, { owner: null })).json().owner, null);
    assertValidation(
      await t.request({ method: 'POST', url: url(), payload: { name: 'owned by stranger', owner: stranger.userId } }),
      'Owner must be a member of this organization',
      'owner',
    );
  });

  test('verified and hidden follow PostHog\'s rules; the stamps cannot be written directly', async () => {
    const id = await createDefinition(t, { name: 'verification' });
    const verified = (await patch(id, { verified: true, verified_at: '2001-01-01T00:00:00Z', verified_by: 12345 })).json();
    assert.equal(verified.verified, true);
    assert.equal(verified.verified_by.id, adminId);
    assert.notEqual(verified.verified_at, '2001-01-01T00:00:00.000Z');
    assert.match(verified.verified_at, /Z$/);

    // Re-verifying keeps the first stamp.
    const org = await currentOrganizationId(t);
    const other = await otherUser(t, org, 'member');
    const reverified = (await patch(id, { verified: true }, other.key)).json();
    assert.equal(reverified.verified_at, verified.verified_at);
    assert.equal(reverified.verified_by.id, adminId);

    // Hiding un-verifies and clears the stamps.
    const hidden = (await patch(id, { hidden: true })).json();
    assert.equal(hidden.hidden, true);
    assert.equal(hidden.verified, false);
    assert.equal(hidden.verified_at, null);
    assert.equal(hidden.verified_by, null);

    // Verifying un-hides.
    const back = (await patch(id, { verified: true })).json();
    assert.equal(back.hidden, false);
    assert.equal(back.verified, true);

    // Un-verifying clears the stamps.
    const unverified = (await patch(id, { verified: false })).json();
    assert.equal(unverified.verified, false);
    assert.equal(unverified.verified_at, null);
    assert.equal(unverified.verified_by, null);

    assertValidation(await patch(id, { verified: true, hidden: true }), 'An event cannot be both hidden and verified', null);
    // DRF's spellings ("yes", "False", 1) are booleans; others are not.
    assertValidation(await patch(id, { verified: 'maybe' }), 'Must be a valid boolean.', 'verified');
  });

  test('enforcement_mode takes allow or reject; default_columns null reads as []', async () => {
    const id = await createDefinition(t, { name: 'enforced' });
    assert.equal((await patch(id, { enforcement_mode: 'reject' })).json().enforcement_mode, 'reject');
    assertValidation(await patch(id, { enforcement_mode: 'block' }), '"block" is not a valid choice.', 'enforcement_mode', 'invalid_choice');
    assert.deepEqual((await patch(id, { default_columns: ['a', 'b'] })).json().default_columns, ['a', 'b']);
    assert.deepEqual((await patch(id, { default_columns: null })).json().default_columns, []);
    const { rows } = await t.db.pool.query('SELECT default_columns, enforcement_mode FROM event_definitions WHERE id = $1', [id]);
    assert.deepEqual(rows[0], { default_columns: null, enforcement_mode: 'reject' });
    assertValidation(await patch(id, { tags: 'one' }), 'Expected a list of items but got type "str".', 'tags', 'not_a_list');
  });

  test('writes a changed activity entry listing old and new values; nothing when nothing changed', async () => {
    const id = await createDefinition(t, { name: 'audited update', tags: ['x'] });
    await patch(id, { description: 'This is a description.', tags: ['x', 'y'] });
    await patch(id, { description: 'This is a description.' });
    const entries = await activities(id);
    assert.deepEqual(entries.map((e) => e.activity), ['created', 'changed']);
    assert.equal(entries[1].user_id, adminId);
    assert.equal(entries[1].detail.name, 'audited update');
    assert.deepEqual(entries[1].detail.changes, [
      { type: 'EventDefinition', action: 'changed', field: 'description', before: '', after: 'This is a description.' },
      { type: 'EventDefinition', action: 'changed', field: 'tags', before: ['x'], after: ['x', 'y'] },
    ]);
  });

  test('unknown and non-UUID ids are 404; PUT updates as DRF does; POST on an id is 405', async () => {
    assert.deepEqual((await patch('nope', { description: 'x' })).json(), NOT_FOUND);
    assert.equal((await patch('00000000-0000-0000-0000-000000000000', { description: 'x' })).statusCode, 404);
    const id = await createDefinition(t, { name: 'no put' });
    const put = await t.request({ method: 'PUT', url: url(id), payload: { description: 'x' } });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(put.json().description, 'x');
    assert.equal((await t.request({ method: 'PUT', url: url('00000000-0000-0000-0000-000000000000'), payload: {} })).statusCode, 404);
    const post = await t.request({ method: 'POST', url: url(id), payload: {} });
    assert.equal(post.statusCode, 405);
    assert.equal(post.headers.allow, 'GET, PATCH, PUT, DELETE, HEAD, OPTIONS');
  });
});

describe('delete', () => {
  test('answers 204 with no body, removes the row and its schema links, then 404', async () => {
    const id = await createDefinition(t, { name: 'doomed', tags: ['old'] });
    const group = await t.request({ method: 'POST', url: groupsUrl(t.projectId), payload: { name: 'doomed group' } });
    const link = await t.request({ method: 'POST', url: eventSchemasUrl(t.projectId), payload: { event_definition: id, property_group: group.json().id } });
    assert.equal(link.statusCode, 201, link.body);

    const response = await t.request({ method: 'DELETE', url: url(id) });
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.equal((await t.request({ method: 'GET', url: url(id) })).statusCode, 404);
    assert.equal((await t.request({ method: 'DELETE', url: url(id) })).statusCode, 404);
    assert.equal((await t.db.pool.query('SELECT 1 FROM event_definitions WHERE id = $1', [id])).rowCount, 0);
    assert.equal((await t.db.pool.query('SELECT 1 FROM event_schemas WHERE event_definition_id = $1', [id])).rowCount, 0);
    // The group itself stays.
    assert.equal((await t.request({ method: 'GET', url: `${groupsUrl(t.projectId)}${group.json().id}/` })).statusCode, 200);

    const entries = await activities(id);
    assert.deepEqual(entries.map((e) => e.activity), ['created', 'deleted']);
    assert.deepEqual(entries[1].detail.changes, [
      { type: 'EventDefinition', action: 'deleted', field: 'name', before: 'doomed', after: null },
      { type: 'EventDefinition', action: 'deleted', field: 'tags', before: ['old'], after: null },
    ]);
  });

  test('another project\'s definition cannot be deleted from here', async () => {
    const other = await secondProject(t);
    const id = await createDefinition(t, { name: 'safe' }, other);
    assert.equal((await t.request({ method: 'DELETE', url: url(id) })).statusCode, 404);
    assert.equal((await t.db.pool.query('SELECT 1 FROM event_definitions WHERE id = $1', [id])).rowCount, 1);
  });
});

describe('metrics', () => {
  async function insertEvent(projectId: number, event: string, timestamp: string): Promise<void> {
    await t.db.pool.query(
      `INSERT INTO events (project_id, uuid, event, distinct_id, timestamp) VALUES ($1, gen_random_uuid(), $2, 'someone', $3)`,
      [projectId, event, timestamp],
    );
  }
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

  test('counts the events of the last 30 days and reports the newest one', async () => {
    const id = await insertDefinitionRow(t, { name: 'measured', last_seen_at: '2020-01-01T00:00:00Z' });
    const newest = daysAgo(0.01);
    for (const ts of [newest, daysAgo(3), daysAgo(29.5)]) await insertEvent(t.projectId, 'measured', ts);
    for (const ts of [daysAgo(31), daysAgo(45)]) await insertEvent(t.projectId, 'measured', ts);
    await insertEvent(t.projectId, 'measured-not', daysAgo(1));
    await insertEvent(t.projectId, 'MEASURED', daysAgo(1));
    const other = await secondProject(t);
    await insertEvent(other, 'measured', daysAgo(1));

    const response = await t.request({ method: 'GET', url: `${url(id)}metrics/` });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { query_usage_30_day: 0, volume_30_day: 3, last_seen_at: newest });
  });

  test('with no events, last_seen_at is the definition\'s own', async () => {
    const id = await insertDefinitionRow(t, { name: 'quiet', last_seen_at: '2024-02-03T04:00:00Z' });
    const response = await t.request({ method: 'GET', url: `${url(id)}metrics` });
    assert.deepEqual(response.json(), { query_usage_30_day: 0, volume_30_day: 0, last_seen_at: '2024-02-03T04:00:00.000Z' });
    const fresh = await createDefinition(t, { name: 'never seen' });
    assert.deepEqual((await t.request({ method: 'GET', url: `${url(fresh)}metrics/` })).json(), {
      query_usage_30_day: 0,
      volume_30_day: 0,
      last_seen_at: null,
    });
  });

  test('needs event_definition:read; unknown ids are 404', async () => {
    const id = await createDefinition(t, { name: 'metered' });
    const read = await keyWith(t, ['event_definition:read']);
    assert.equal((await t.request({ method: 'GET', url: `${url(id)}metrics/`, key: read })).statusCode, 200);
    const flags = await keyWith(t, ['feature_flag:read']);
    const denied = await t.request({ method: 'GET', url: `${url(id)}metrics/`, key: flags });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), missingScope('event_definition:read'));
    assert.equal((await t.request({ method: 'GET', url: `${url('x')}metrics/` })).statusCode, 404);
  });
});

describe('scopes and access', () => {
  test('no key is 401', async () => {
    const response = await t.request({ method: 'GET', url: url(), key: null });
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().code, 'not_authenticated');
  });

  test('a read key reads but cannot create, update or delete', async () => {
    const id = await createDefinition(t, { name: 'guarded' });
    const read = await keyWith(t, ['event_definition:read']);
    assert.equal((await t.request({ method: 'GET', url: url(), key: read })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: url(id), key: read })).statusCode, 200);
    for (const [method, target, payload] of [
      ['POST', url(), { name: 'nope' }],
      ['PATCH', url(id), { description: 'nope' }],
      ['DELETE', url(id), undefined],
    ] as const) {
      const response = await t.request({ method, url: target, key: read, payload });
      assert.equal(response.statusCode, 403, `${method} ${target}`);
      assert.deepEqual(response.json(), missingScope('event_definition:write'));
    }
    assert.equal((await t.db.pool.query("SELECT 1 FROM event_definitions WHERE name = 'nope'")).rowCount, 0);
    assert.equal((await getDefinition(t, id)).description, '');
  });

  test('a write key also reads; a key for other objects reads nothing', async () => {
    const write = await keyWith(t, ['event_definition:write']);
    assert.equal((await t.request({ method: 'GET', url: url(), key: write })).statusCode, 200);
    assert.equal((await t.request({ method: 'POST', url: url(), key: write, payload: { name: 'by writer' } })).statusCode, 201);
    const flags = await keyWith(t, ['feature_flag:write']);
    const denied = await t.request({ method: 'GET', url: url(), key: flags });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), missingScope('event_definition:read'));
  });

  test('another organization\'s project is 403', async () => {
    const foreign = await foreignOrganization(t);
    const response = await t.request({ method: 'GET', url: definitionsUrl(foreign.projectId) });
    assert.equal(response.statusCode, 403);
    assert.equal(response.json().detail, "You don't have access to the project.");
  });

  test('the OpenAPI document lists every route with its scope and tag', async () => {
    const doc = (await t.request({ method: 'GET', url: '/api/schema/', key: null })).json();
    const base = '/api/projects/{project_id}/event_definitions';
    const expected: [string, string, string][] = [
      [`${base}/`, 'get', 'event_definition:read'],
      [`${base}/`, 'post', 'event_definition:write'],
      [`${base}/{id}`, 'get', 'event_definition:read'],
      [`${base}/{id}`, 'patch', 'event_definition:write'],
      [`${base}/{id}`, 'delete', 'event_definition:write'],
      [`${base}/{id}/metrics`, 'get', 'event_definition:read'],
    ];
    for (const [path, method, scope] of expected) {
      const operation = doc.paths[path]?.[method] ?? doc.paths[path.replace(/\/$/, '')]?.[method];
      assert.ok(operation, `${method} ${path}`);
      assert.equal(operation['x-required-scope'], scope, `${method} ${path}`);
      assert.deepEqual(operation.tags, ['event_definitions']);
    }
  });
});

describe('by_name', () => {
  test('the definition with exactly this name; 400 without a name; 404 for an unknown one or another project', async () => {
    const id = await createDefinition(t, { name: 'bn signed up', description: 'first visit' });
    await createDefinition(t, { name: 'BN Signed Up' });
    const found = await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}by_name/?name=${encodeURIComponent('bn signed up')}` });
    assert.equal(found.statusCode, 200, found.body);
    assert.equal(found.json().id, id);
    assert.equal(found.json().description, 'first visit');
    assertValidation(await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}by_name/` }), "Query parameter 'name' is required", 'name', 'required');
    const unknown = await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}by_name?name=nope` });
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { type: 'invalid_request', code: 'not_found', detail: "Event definition with name 'nope' not found", attr: null });
    const other = await otherProject(t);
    assert.equal((await t.request({ method: 'GET', url: `${definitionsUrl(other)}by_name?name=bn%20signed%20up` })).statusCode, 404);
    const reader = await keyWith(t, ['feature_flag:read']);
    assert.deepEqual((await t.request({ method: 'GET', url: `${definitionsUrl(t.projectId)}by_name?name=x`, key: reader })).json(), missingScope('event_definition:read'));
    assert.equal((await t.request({ method: 'POST', url: `${definitionsUrl(t.projectId)}by_name/` })).statusCode, 405);
  });
});
