import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  NOT_FOUND,
  assertValidation,
  createDefinition,
  eventSchemasUrl,
  groupsUrl,
  keyWith,
  missingScope,
  secondProject,
  type Json,
} from './definitions-support.ts';

let t: TestApp;
let adminId: number;
before(async () => {
  t = await startTestApp();
  adminId = (await t.request({ method: 'GET', url: '/api/users/@me/' })).json().id;
});
after(async () => {
  await t.close();
});

const groups = (id = '') => `${groupsUrl(t.projectId)}${id ? `${id}/` : ''}`;
const links = (id = '') => `${eventSchemasUrl(t.projectId)}${id ? `${id}/` : ''}`;

async function createGroup(body: Json, projectId = t.projectId): Promise<Json> {
  const response = await t.request({ method: 'POST', url: groupsUrl(projectId), payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

/** What the code generators read, straight from the tables. */
async function storedProperties(groupId: string): Promise<Json[]> {
  const { rows } = await t.db.pool.query(
    `SELECT name, property_type, is_required, is_optional_in_types, description
       FROM schema_property_group_properties WHERE property_group_id = $1 ORDER BY name COLLATE "C"`,
    [groupId],
  );
  return rows;
}

describe('schema property groups', () => {
  test('create answers 201 with the group, its properties by name, no events yet', async () => {
    const group = await createGroup({
      name: 'File',
      description: 'Files moved around',
      properties: [
        { name: 'file_size', property_type: 'Numeric', is_required: true, description: 'bytes' },
        { name: 'file_name', property_type: 'String' },
        { name: 'tags', property_type: 'Array', is_optional_in_types: true },
        { name: 'meta', property_type: 'Object' },
        { name: 'uploaded_at', property_type: 'DateTime' },
        { name: 'public', property_type: 'Boolean' },
      ],
    });
    assert.deepEqual(Object.keys(group), ['id', 'name', 'description', 'properties', 'events', 'created_at', 'updated_at', 'created_by']);
    assert.equal(group.name, 'File');
    assert.equal(group.description, 'Files moved around');
    assert.deepEqual(group.events, []);
    assert.equal(group.created_by.id, adminId);
    assert.deepEqual(group.properties.map((p: Json) => p.name), ['file_name', 'file_size', 'meta', 'public', 'tags', 'uploaded_at']);
    const size = group.properties.find((p: Json) => p.name === 'file_size');
    assert.deepEqual(Object.keys(size), ['id', 'name', 'property_type', 'is_required', 'is_optional_in_types', 'description', 'created_at', 'updated_at']);
    assert.deepEqual(await storedProperties(group.id), [
      { name: 'file_name', property_type: 'String', is_required: false, is_optional_in_types: false, description: '' },
      { name: 'file_size', property_type: 'Numeric', is_required: true, is_optional_in_types: false, description: 'bytes' },
      { name: 'meta', property_type: 'Object', is_required: false, is_optional_in_types: false, description: '' },
      { name: 'public', property_type: 'Boolean', is_required: false, is_optional_in_types: false, description: '' },
      { name: 'tags', property_type: 'Array', is_required: false, is_optional_in_types: true, description: '' },
      { name: 'uploaded_at', property_type: 'DateTime', is_required: false, is_optional_in_types: false, description: '' },
    ]);
    const { rows } = await t.db.pool.query('SELECT project_id, name, description, created_by_id FROM schema_property_groups WHERE id = $1', [group.id]);
    assert.deepEqual(rows[0], { project_id: t.projectId, name: 'File', description: 'Files moved around', created_by_id: adminId });
  });

  test('property names are trimmed and otherwise taken as sent (the generators escape them)', async () => {
    const hostile = ['$current_url', 'file-size', 'has space', 'quote"s', "it's", 'back\\slash', '123start', 'class', 'ünïcode'];
    const group = await createGroup({ name: 'Hostile', properties: [...hostile.map((name) => ({ name, property_type: 'String' })), { name: '  padded  ', property_type: 'String' }] });
    const stored = (await storedProperties(group.id)).map((p) => p.name);
    assert.deepEqual(stored.sort(), [...hostile, 'padded'].sort());
  });

  test('invalid groups and properties are 400s naming the field; nothing is written', async () => {
    const post = (payload: Json) => t.request({ method: 'POST', url: groups(), payload });
    assertValidation(await post({}), 'This field is required.', 'name', 'required');
    assertValidation(await post({ name: '  ' }), 'This field may not be blank.', 'name', 'blank');
    assertValidation(await post({ name: 'g'.repeat(401) }), 'Ensure this field has no more than 400 characters.', 'name', 'max_length');
    assertValidation(await post({ name: 'Bad', properties: [{ name: ' ', property_type: 'String' }] }), 'This field may not be blank.', 'properties__0__name', 'blank');
    assertValidation(await post({ name: 'Bad', properties: [{ property_type: 'String' }] }), 'This field is required.', 'properties__0__name', 'required');
    assertValidation(
      await post({ name: 'Bad', properties: [{ name: 'a', property_type: 'String' }, { name: 'a', property_type: 'Float' }] }),
      '"Float" is not a valid choice.',
      'properties__1__property_type',
      'invalid_choice',
    );
    assertValidation(
      await post({ name: 'Bad', properties: [{ name: 'a', property_type: 'String' }, { name: ' a', property_type: 'Numeric' }] }),
      "A property named 'a' already exists in this group.",
      'properties__1__name',
      'unique',
    );
    assertValidation(await post({ name: 'Bad', properties: [{ name: 'a', property_type: 'Duration' }] }), '"Duration" is not a valid choice.', 'properties__0__property_type');
    assertValidation(await post({ name: 'Bad', properties: {} }), 'Expected a list of items but got type "dict".', 'properties', 'not_a_list');
    assert.equal((await t.db.pool.query("SELECT 1 FROM schema_property_groups WHERE name = 'Bad'")).rowCount, 0);
  });

  test('a duplicate group name is a 400 on name; names are per project', async () => {
    await createGroup({ name: 'Unique' });
    assertValidation(
      await t.request({ method: 'POST', url: groups(), payload: { name: 'Unique' } }),
      'A property group with this name already exists for this team',
      'name',
    );
    await createGroup({ name: 'Unique' }, await secondProject(t));
  });

  test('update: known ids are updated, missing ones deleted, the rest created; renames and swaps work', async () => {
    const group = await createGroup({
      name: 'Evolving',
      properties: [
        { name: 'keep', property_type: 'String' },
        { name: 'change', property_type: 'String' },
        { name: 'drop', property_type: 'String' },
        { name: 'left', property_type: 'Numeric' },
        { name: 'right', property_type: 'Boolean' },
      ],
    });
    const byName = Object.fromEntries(group.properties.map((p: Json) => [p.name, p]));
    const response = await t.request({
      method: 'PATCH',
      url: groups(group.id),
      payload: {
        name: 'Evolved',
        properties: [
          { id: byName.keep.id, name: 'keep', property_type: 'String' },
          { id: byName.change.id, name: 'changed', property_type: 'Numeric', is_required: true },
          { id: byName.left.id, name: 'right', property_type: 'Numeric' },
          { id: byName.right.id, name: 'left', property_type: 'Boolean' },
          { name: 'new', property_type: 'DateTime' },
          { id: '00000000-0000-0000-0000-000000000000', name: 'unknown id', property_type: 'String' },
        ],
      },
    });
    assert.equal(response.statusCode, 200, response.body);
    const updated = response.json();
    assert.equal(updated.name, 'Evolved');
    assert.ok(updated.updated_at >= group.updated_at);
    const after = Object.fromEntries(updated.properties.map((p: Json) => [p.name, p]));
    assert.deepEqual(Object.keys(after).sort(), ['changed', 'keep', 'left', 'new', 'right', 'unknown id']);
    assert.equal(after.keep.id, byName.keep.id);
    assert.equal(after.keep.created_at, byName.keep.created_at);
    assert.equal(after.keep.updated_at, byName.keep.updated_at);
    assert.equal(after.changed.id, byName.change.id);
    assert.equal(after.changed.property_type, 'Numeric');
    assert.equal(after.changed.is_required, true);
    assert.equal(after.changed.created_at, byName.change.created_at);
    assert.equal(after.right.id, byName.left.id);
    assert.equal(after.left.id, byName.right.id);
    assert.notEqual(after['unknown id'].id, '00000000-0000-0000-0000-000000000000');
    assert.equal((await t.db.pool.query('SELECT 1 FROM schema_property_group_properties WHERE id = $1', [byName.drop.id])).rowCount, 0);

    // Without `properties`, the properties stay.
    const renamed = (await t.request({ method: 'PATCH', url: groups(group.id), payload: { description: 'Now described' } })).json();
    assert.equal(renamed.description, 'Now described');
    assert.equal(renamed.properties.length, 6);
    // An empty list removes them all.
    const emptied = (await t.request({ method: 'PATCH', url: groups(group.id), payload: { properties: [] } })).json();
    assert.deepEqual(emptied.properties, []);
    assert.deepEqual(await storedProperties(group.id), []);
  });

  test('renaming onto another group\'s name is a 400; keeping one\'s own name is fine', async () => {
    await createGroup({ name: 'Taken' });
    const group = await createGroup({ name: 'Mine' });
    assertValidation(
      await t.request({ method: 'PATCH', url: groups(group.id), payload: { name: 'Taken' } }),
      'A property group with this name already exists for this team',
      'name',
    );
    assert.equal((await t.request({ method: 'PATCH', url: groups(group.id), payload: { name: 'Mine' } })).statusCode, 200);
  });

  test('list by name, retrieve, 404 for unknown, non-UUID and foreign ids', async () => {
    const page = (await t.request({ method: 'GET', url: `${groups()}?limit=1000` })).json();
    const listed = page.results.map((g: Json) => g.name);
    assert.deepEqual(listed, [...listed].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
    assert.equal(page.count, listed.length);
    const group = page.results[0];
    assert.deepEqual((await t.request({ method: 'GET', url: groups(group.id) })).json(), group);
    assert.deepEqual((await t.request({ method: 'GET', url: groups('nope') })).json(), NOT_FOUND);
    const foreign = await createGroup({ name: 'Foreign' }, await secondProject(t));
    assert.equal((await t.request({ method: 'GET', url: groups(foreign.id) })).statusCode, 404);
    assert.equal((await t.request({ method: 'PATCH', url: groups(foreign.id), payload: { name: 'x' } })).statusCode, 404);
    assert.equal((await t.request({ method: 'DELETE', url: groups(foreign.id) })).statusCode, 404);
    assert.ok(!listed.includes('Foreign'));
  });

  test('delete answers 204 and removes the properties and the links to events', async () => {
    const definition = await createDefinition(t, { name: 'group to delete event' });
    const group = await createGroup({ name: 'Short-lived', properties: [{ name: 'x', property_type: 'String' }] });
    const link = await t.request({ method: 'POST', url: links(), payload: { event_definition: definition, property_group: group.id } });
    assert.equal(link.statusCode, 201, link.body);
    const response = await t.request({ method: 'DELETE', url: groups(group.id) });
    assert.equal(response.statusCode, 204);
    assert.equal(response.body, '');
    assert.equal((await t.request({ method: 'GET', url: groups(group.id) })).statusCode, 404);
    assert.deepEqual(await storedProperties(group.id), []);
    assert.equal((await t.db.pool.query('SELECT 1 FROM event_schemas WHERE property_group_id = $1', [group.id])).rowCount, 0);
    assert.equal((await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/event_definitions/${definition}/` })).statusCode, 200);
  });
});

describe('event schemas', () => {
  test('links a group to a definition (201 with the group inside); the group lists the event', async () => {
    const definition = await createDefinition(t, { name: 'file_downloaded' });
    const group = await createGroup({ name: 'Download', properties: [{ name: 'file_name', property_type: 'String', is_required: true }] });
    const response = await t.request({ method: 'POST', url: links(), payload: { event_definition: definition, property_group: group.id } });
    assert.equal(response.statusCode, 201, response.body);
    const link = response.json();
    assert.deepEqual(Object.keys(link), ['id', 'event_definition', 'property_group', 'created_at', 'updated_at']);
    assert.equal(link.event_definition, definition);
    assert.equal(link.property_group.id, group.id);
    assert.deepEqual(link.property_group.properties.map((p: Json) => p.name), ['file_name']);
    assert.deepEqual(link.property_group.events, [{ id: definition, name: 'file_downloaded' }]);
    const { rows } = await t.db.pool.query('SELECT event_definition_id, property_group_id FROM event_schemas WHERE id = $1', [link.id]);
    assert.deepEqual(rows[0], { event_definition_id: definition, property_group_id: group.id });
    assert.deepEqual((await t.request({ method: 'GET', url: groups(group.id) })).json().events, [{ id: definition, name: 'file_downloaded' }]);
    assert.deepEqual((await t.request({ method: 'GET', url: links(link.id) })).json(), link);
  });

  test('property_group_id (the PostHog frontend spelling) works too', async () => {
    const definition = await createDefinition(t, { name: 'frontend spelling' });
    const group = await createGroup({ name: 'Spelling' });
    const response = await t.request({ method: 'POST', url: links(), payload: { event_definition: definition, property_group_id: group.id } });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().property_group.id, group.id);
  });

  test('refuses duplicates, another project\'s group or definition, unknown and malformed ids', async () => {
    const definition = await createDefinition(t, { name: 'guarded link' });
    const group = await createGroup({ name: 'Guarded' });
    const post = (payload: Json) => t.request({ method: 'POST', url: links(), payload });
    assert.equal((await post({ event_definition: definition, property_group: group.id })).statusCode, 201);
    assertValidation(
      await post({ event_definition: definition, property_group: group.id }),
      "Property group 'Guarded' is already added to this event schema",
      'property_group',
    );
    const other = await secondProject(t);
    const foreignGroup = await createGroup({ name: 'Elsewhere' }, other);
    assertValidation(
      await post({ event_definition: definition, property_group: foreignGroup.id }),
      'Property group must belong to the same team as the event definition',
      'property_group',
    );
    const foreignDefinition = await createDefinition(t, { name: 'elsewhere event' }, other);
    assertValidation(
      await post({ event_definition: foreignDefinition, property_group: group.id }),
      `Invalid pk "${foreignDefinition}" - object does not exist.`,
      'event_definition',
      'does_not_exist',
    );
    const unknown = '00000000-0000-0000-0000-000000000001';
    assertValidation(await post({ event_definition: definition, property_group: unknown }), `Invalid pk "${unknown}" - object does not exist.`, 'property_group', 'does_not_exist');
    assertValidation(await post({ event_definition: 'nope', property_group: group.id }), 'Must be a valid UUID.', 'event_definition');
    assertValidation(await post({ event_definition: definition }), 'This field is required.', 'property_group', 'required');
    assertValidation(await post({ property_group: group.id }), 'This field is required.', 'event_definition', 'required');
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM event_schemas WHERE event_definition_id = $1', [definition]);
    assert.equal(rows[0].n, 1);
  });

  test('list filters by ?event_definition; only this project; malformed filter → 400', async () => {
    const a = await createDefinition(t, { name: 'listed a' });
    const b = await createDefinition(t, { name: 'listed b' });
    const g1 = await createGroup({ name: 'L1' });
    const g2 = await createGroup({ name: 'L2' });
    for (const [definition, group] of [[a, g1], [a, g2], [b, g1]] as const) {
      assert.equal((await t.request({ method: 'POST', url: links(), payload: { event_definition: definition, property_group: group.id } })).statusCode, 201);
    }
    const forA = (await t.request({ method: 'GET', url: `${links()}?event_definition=${a}` })).json();
    assert.equal(forA.count, 2);
    assert.deepEqual(forA.results.map((l: Json) => l.property_group.name), ['L1', 'L2']);
    assert.ok(forA.results.every((l: Json) => l.event_definition === a));
    const all = (await t.request({ method: 'GET', url: links() })).json();
    assert.ok(all.count >= 3);
    const other = await secondProject(t);
    assert.equal((await t.request({ method: 'GET', url: eventSchemasUrl(other) })).json().count, 0);
    assertValidation(await t.request({ method: 'GET', url: `${links()}?event_definition=nope` }), 'Must be a valid UUID.', 'event_definition');
  });

  test('delete answers 204 and leaves the group and the definition', async () => {
    const definition = await createDefinition(t, { name: 'unlinked' });
    const group = await createGroup({ name: 'Unlinked' });
    const link = (await t.request({ method: 'POST', url: links(), payload: { event_definition: definition, property_group: group.id } })).json();
    const response = await t.request({ method: 'DELETE', url: links(link.id) });
    assert.equal(response.statusCode, 204);
    assert.equal((await t.request({ method: 'GET', url: links(link.id) })).statusCode, 404);
    assert.equal((await t.request({ method: 'DELETE', url: links(link.id) })).statusCode, 404);
    assert.deepEqual((await t.request({ method: 'GET', url: groups(group.id) })).json().events, []);
    assert.equal((await t.request({ method: 'PATCH', url: links(link.id), payload: {} })).statusCode, 405);
  });
});

describe('scopes', () => {
  test('reads need event_definition:read, writes event_definition:write', async () => {
    const read = await keyWith(t, ['event_definition:read']);
    assert.equal((await t.request({ method: 'GET', url: groups(), key: read })).statusCode, 200);
    assert.equal((await t.request({ method: 'GET', url: links(), key: read })).statusCode, 200);
    const create = await t.request({ method: 'POST', url: groups(), key: read, payload: { name: 'Not allowed' } });
    assert.equal(create.statusCode, 403);
    assert.deepEqual(create.json(), missingScope('event_definition:write'));
    const link = await t.request({ method: 'POST', url: links(), key: read, payload: {} });
    assert.deepEqual(link.json(), missingScope('event_definition:write'));
    const flags = await keyWith(t, ['feature_flag:write']);
    assert.deepEqual((await t.request({ method: 'GET', url: groups(), key: flags })).json(), missingScope('event_definition:read'));
    assert.equal((await t.request({ method: 'GET', url: links(), key: null })).statusCode, 401);
    const write = await keyWith(t, ['event_definition:write']);
    assert.equal((await t.request({ method: 'POST', url: groups(), key: write, payload: { name: 'By writer' } })).statusCode, 201);
  });
});
