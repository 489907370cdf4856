import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { NOT_FOUND, assertValidation, keyWith, missingScope, propertiesUrl, secondProject, type Json } from './definitions-support.ts';

const FIELDS = [
  'id', 'name', 'description', 'tags', 'is_numerical', 'updated_at', 'updated_by', 'is_seen_on_filtered_events',
  'property_type', 'verified', 'verified_at', 'verified_by', 'hidden', 'type', 'group_type_index',
];

let t: TestApp;
let adminId: number;
const ids: Record<string, string> = {};

/** type, group_type_index, name, property_type, hidden */
const FIXTURES: [number, number | null, string, string | null, boolean][] = [
  [1, null, '$browser', 'String', false],
  [1, null, '$current_url', 'String', false],
  [1, null, '$feature/beta', 'String', false],
  [1, null, 'amount', 'Numeric', false],
  [1, null, 'plan_name', 'String', false],
  [1, null, 'plan%x', 'String', false],
  [1, null, 'planxname', 'String', false],
  [1, null, 'Zeta', null, true],
  [1, null, 'quantity', 'Numeric', false],
  [2, null, 'email', 'String', false],
  [2, null, 'age', 'Numeric', false],
  [3, 0, 'company_name', 'String', false],
  [3, 1, 'team_size', 'Numeric', false],
];
const EVENT_ORDER = ['$browser', '$current_url', '$feature/beta', 'Zeta', 'amount', 'plan%x', 'plan_name', 'planxname', 'quantity'];

before(async () => {
  t = await startTestApp();
  adminId = (await t.request({ method: 'GET', url: '/api/users/@me/' })).json().id;
  // A linguistic collation on the column (where ICU is there), so the byte-wise order is proven.
  const icu = await t.db.pool.query(`SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'`);
  if (icu.rowCount) await t.db.pool.query('ALTER TABLE property_definitions ALTER COLUMN name TYPE text COLLATE "und-x-icu"');
  for (const [type, gti, name, propertyType, hidden] of FIXTURES) {
    const { rows } = await t.db.pool.query(
      `INSERT INTO property_definitions (project_id, type, group_type_index, name, property_type, is_numerical, hidden)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [t.projectId, type, gti, name, propertyType, propertyType === 'Numeric', hidden],
    );
    ids[`${type}:${name}`] = rows[0].id;
  }
  await t.db.pool.query(
    `INSERT INTO event_properties (project_id, event, property) VALUES
       ($1, 'purchase', 'amount'), ($1, 'purchase', 'quantity'), ($1, 'purchase', '$browser'),
       ($1, '$pageview', '$current_url'), ($1, '$pageview', '$browser')`,
    [t.projectId],
  );
  const other = await secondProject(t);
  await t.db.pool.query(`INSERT INTO property_definitions (project_id, type, name) VALUES ($1, 1, 'foreign_prop')`, [other]);
});
after(async () => {
  await t.close();
});

const url = (id = '') => `${propertiesUrl(t.projectId)}${id ? `${id}/` : ''}`;
async function list(query = ''): Promise<Json> {
  const response = await t.request({ method: 'GET', url: `${url()}${query ? `?${query}` : ''}` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}
const names = async (query = '') => (await list(query)).results.map((p: Json) => p.name);
const enc = encodeURIComponent;

describe('list', () => {
  test('event properties by default, by name byte-wise, with PostHog\'s fields', async () => {
    const page = await list();
    assert.equal(page.count, EVENT_ORDER.length);
    assert.deepEqual(page.results.map((p: Json) => p.name), EVENT_ORDER);
    const amount = page.results.find((p: Json) => p.name === 'amount');
    assert.deepEqual(Object.keys(amount), FIELDS);
    assert.deepEqual(
      { ...amount, id: undefined, updated_at: undefined },
      {
        id: undefined,
        name: 'amount',
        description: '',
        tags: [],
        is_numerical: true,
        updated_at: undefined,
        updated_by: null,
        is_seen_on_filtered_events: null,
        property_type: 'Numeric',
        verified: false,
        verified_at: null,
        verified_by: null,
        hidden: false,
        type: 'event',
        group_type_index: null,
      },
    );
  });

  test('type person and group (with group_type_index); bad type or missing index → 400', async () => {
    assert.deepEqual(await names('type=person'), ['age', 'email']);
    assert.deepEqual(await names('type=group&group_type_index=1'), ['team_size']);
    const group = (await list('type=group&group_type_index=0')).results[0];
    assert.equal(group.type, 'group');
    assert.equal(group.group_type_index, 0);
    assertValidation(await t.request({ method: 'GET', url: `${url()}?type=group` }), 'This field is required.', 'group_type_index', 'required');
    assertValidation(await t.request({ method: 'GET', url: `${url()}?type=session` }), '"session" is not a valid choice.', 'type', 'invalid_choice');
    assert.equal((await t.request({ method: 'GET', url: `${url()}?type=group&group_type_index=5` })).statusCode, 400);
  });

  test('search terms are ANDed, case-insensitive, with % and _ literal', async () => {
    assert.deepEqual(await names('search=PLAN'), ['plan%x', 'plan_name', 'planxname']);
    assert.deepEqual(await names('search=plan_'), ['plan_name']);
    assert.deepEqual(await names(`search=${enc('%')}`), ['plan%x']);
    assert.deepEqual(await names(`search=${enc('plan name')}`), ['plan_name', 'planxname']);
  });

  test('event_names marks the properties seen with those events and lists them first; filter_by_event_names keeps only them', async () => {
    const marked = (await list(`event_names=${enc('["purchase"]')}`)).results.map((p: Json) => [p.name, p.is_seen_on_filtered_events]);
    assert.deepEqual(marked, [
      ['$browser', true], ['amount', true], ['quantity', true],
      ['$current_url', false], ['$feature/beta', false], ['Zeta', false], ['plan%x', false], ['plan_name', false], ['planxname', false],
    ]);
    const only = await list(`event_names=${enc('["purchase","$pageview"]')}&filter_by_event_names=true`);
    assert.equal(only.count, 4);
    assert.deepEqual(only.results.map((p: Json) => p.name), ['$browser', '$current_url', 'amount', 'quantity']);
    assert.ok(only.results.every((p: Json) => p.is_seen_on_filtered_events === true));
    assertValidation(await t.request({ method: 'GET', url: `${url()}?event_names=purchase` }), 'Must be a JSON-encoded list of strings.', 'event_names');
  });

  test('properties, is_numerical, is_feature_flag, excluded_properties, exclude_hidden, exclude_core_properties', async () => {
    assert.deepEqual(await names('properties=amount,quantity,nope'), ['amount', 'quantity']);
    assert.deepEqual(await names('is_numerical=true'), ['amount', 'quantity']);
    assert.deepEqual(await names('is_numerical=false'), EVENT_ORDER.filter((n) => n !== 'amount' && n !== 'quantity'));
    assert.deepEqual(await names('is_feature_flag=true'), ['$feature/beta']);
    assert.deepEqual(await names('is_feature_flag=false'), EVENT_ORDER.filter((n) => n !== '$feature/beta'));
    assert.deepEqual(await names(`excluded_properties=${enc('["amount","$browser"]')}`), EVENT_ORDER.filter((n) => n !== 'amount' && n !== '$browser'));
    assertValidation(await t.request({ method: 'GET', url: `${url()}?excluded_properties=${enc('[oops')}` }), 'Must be a JSON-encoded list of strings.', 'excluded_properties');
    assert.deepEqual(await names('exclude_hidden=true'), EVENT_ORDER.filter((n) => n !== 'Zeta'));
    assert.deepEqual(await names('exclude_core_properties=true'), EVENT_ORDER.filter((n) => !n.startsWith('$')));
  });

  test('paginates', async () => {
    const page = await list('limit=4&offset=4');
    assert.equal(page.count, 9);
    assert.deepEqual(page.results.map((p: Json) => p.name), EVENT_ORDER.slice(4, 8));
    assert.equal(new URL(page.next).searchParams.get('offset'), '8');
    assert.equal(new URL(page.previous).searchParams.get('offset'), null);
  });
});

describe('retrieve, update, delete', () => {
  test('retrieve by UUID; non-UUID, unknown and foreign ids are 404', async () => {
    const response = await t.request({ method: 'GET', url: url(ids['2:email']) });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().name, 'email');
    assert.equal(response.json().type, 'person');
    assert.equal(response.json().is_seen_on_filtered_events, null);
    assert.deepEqual((await t.request({ method: 'GET', url: url('email') })).json(), NOT_FOUND);
    assert.equal((await t.request({ method: 'GET', url: url('00000000-0000-0000-0000-000000000000') })).statusCode, 404);
    const { rows } = await t.db.pool.query("SELECT id FROM property_definitions WHERE name = 'foreign_prop'");
    assert.equal((await t.request({ method: 'GET', url: url(rows[0].id) })).statusCode, 404);
  });

  test('PATCH: description, tags, property_type (is_numerical follows), name ignored, stamps, activity', async () => {
    const id = ids['1:plan_name'];
    const response = await t.request({
      method: 'PATCH',
      url: url(id),
      payload: { name: 'renamed', description: 'The plan', tags: ['Billing', ' billing ', 'core'], property_type: 'Numeric' },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.name, 'plan_name');
    assert.equal(body.description, 'The plan');
    assert.deepEqual(body.tags, ['billing', 'core']);
    assert.equal(body.property_type, 'Numeric');
    assert.equal(body.is_numerical, true);
    assert.equal(body.updated_by.id, adminId);

    const cleared = (await t.request({ method: 'PATCH', url: url(id), payload: { property_type: null } })).json();
    assert.equal(cleared.property_type, null);
    assert.equal(cleared.is_numerical, false);
    assert.equal((await t.request({ method: 'PATCH', url: url(id), payload: { property_type: 'DateTime' } })).json().is_numerical, false);
    assertValidation(
      await t.request({ method: 'PATCH', url: url(id), payload: { property_type: 'Float' } }),
      '"Float" is not a valid choice.',
      'property_type',
      'invalid_choice',
    );

    const { rows } = await t.db.pool.query(
      "SELECT activity, detail FROM activity_log WHERE scope = 'PropertyDefinition' AND item_id = $1 ORDER BY created_at",
      [id],
    );
    assert.deepEqual(rows.map((r) => r.activity), ['changed', 'changed', 'changed']);
    assert.deepEqual(rows[0].detail.changes.map((c: Json) => [c.field, c.before, c.after]), [
      ['description', '', 'The plan'],
      ['tags', [], ['billing', 'core']],
      ['property_type', 'String', 'Numeric'],
      ['is_numerical', false, true],
    ]);
  });

  test('verified and hidden follow the event-definition rules', async () => {
    const id = ids['1:quantity'];
    const patchIt = (payload: Json) => t.request({ method: 'PATCH', url: url(id), payload });
    const verified = (await patchIt({ verified: true })).json();
    assert.equal(verified.verified_by.id, adminId);
    assert.match(verified.verified_at, /Z$/);
    assert.equal((await patchIt({ verified: true })).json().verified_at, verified.verified_at);
    const hidden = (await patchIt({ hidden: true })).json();
    assert.deepEqual([hidden.hidden, hidden.verified, hidden.verified_at, hidden.verified_by], [true, false, null, null]);
    assertValidation(await patchIt({ verified: true, hidden: true }), 'A property cannot be both hidden and verified', null);
    const back = (await patchIt({ verified: true })).json();
    assert.deepEqual([back.hidden, back.verified], [false, true]);
  });

  test('DELETE answers 204, removes the row and its event_properties, then 404', async () => {
    const id = ids['1:amount'];
    const response = await t.request({ method: 'DELETE', url: url(id) });
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.equal((await t.request({ method: 'GET', url: url(id) })).statusCode, 404);
    assert.equal((await t.request({ method: 'DELETE', url: url(id) })).statusCode, 404);
    const left = await t.db.pool.query("SELECT property FROM event_properties WHERE event = 'purchase' ORDER BY property");
    assert.deepEqual(left.rows.map((r) => r.property), ['$browser', 'quantity']);
    const log = await t.db.pool.query("SELECT activity FROM activity_log WHERE scope = 'PropertyDefinition' AND item_id = $1", [id]);
    assert.deepEqual(log.rows, [{ activity: 'deleted' }]);
  });

  test('POST and PUT are not offered', async () => {
    assert.equal((await t.request({ method: 'POST', url: url(), payload: { name: 'x' } })).statusCode, 405);
    assert.equal((await t.request({ method: 'PUT', url: url(ids['2:age']), payload: {} })).statusCode, 405);
  });
});

describe('scopes', () => {
  test('property_definition:read reads, :write writes; event_definition scopes do not reach here', async () => {
    const read = await keyWith(t, ['property_definition:read']);
    assert.equal((await t.request({ method: 'GET', url: url(), key: read })).statusCode, 200);
    const denied = await t.request({ method: 'PATCH', url: url(ids['2:age']), key: read, payload: { description: 'x' } });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), missingScope('property_definition:write'));
    const del = await t.request({ method: 'DELETE', url: url(ids['2:age']), key: read });
    assert.equal(del.statusCode, 403);
    const write = await keyWith(t, ['property_definition:write']);
    assert.equal((await t.request({ method: 'PATCH', url: url(ids['2:age']), key: write, payload: { description: 'Years' } })).statusCode, 200);
    const events = await keyWith(t, ['event_definition:write']);
    const other = await t.request({ method: 'GET', url: url(), key: events });
    assert.equal(other.statusCode, 403);
    assert.deepEqual(other.json(), missingScope('property_definition:read'));
    assert.equal((await t.request({ method: 'GET', url: url(), key: null })).statusCode, 401);
  });
});
