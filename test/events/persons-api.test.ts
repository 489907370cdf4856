import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { event, newProject, personOf, resolve } from './persons-support.ts';

/**
 * The read endpoints, over a fixed set of persons made through resolvePersons in a project of
 * their own (so that counts are exact).
 */

let t: TestApp;
let projectId: number;
let otherProjectId: number;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

const at = (minute: number) => new Date(Date.UTC(2024, 5, 1, 12, minute));
const url = (path: string, project: number | string = projectId) => `/api/projects/${project}/${path}`;

async function keyWith(scopes: string[]): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: scopes.join(' ') || 'none', scopes } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().value;
}

async function get(path: string, key?: string) {
  const res = await t.request({ method: 'GET', url: path, key });
  return { status: res.statusCode, body: res.json() };
}

async function listDistinctIds(query: string): Promise<string[][]> {
  const { status, body } = await get(url(`persons/?${query}`));
  assert.equal(status, 200, JSON.stringify(body));
  return body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids);
}

before(async () => {
  t = await startTestApp();
  projectId = await newProject(t, 'persons api');
  otherProjectId = await newProject(t, 'someone else');
  // Oldest first: alice (identified, two ids), bob, carol (no name property), dave (numbers).
  await resolve(
    t,
    [
      event('$pageview', 'anon-alice', { $set_once: { initial_referrer: 'google' } }, at(1)),
      event('$identify', 'alice', { $anon_distinct_id: 'anon-alice', $set: { email: 'Alice@Example.com', name: 'Alice A', plan: 'pro', age: 31 } }, at(2)),
      event('$pageview', 'bob', { $set: { email: 'bob@example.org', name: 'Bob B', plan: 'free', age: 9, nothing: null } }, at(3)),
      event('$pageview', 'carol', { $set: { plan: 'pro', age: '100' } }, at(4)),
      event('$pageview', 'dave', { $set: { username: 'dave_d', age: 45.5, tags: ['x'] } }, at(5)),
    ],
    projectId,
  );
  await resolve(t, [event('$pageview', 'alice', {}, at(6))], otherProjectId);
  await resolve(
    t,
    [
      event('$groupidentify', 'alice', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme Inc', size: 10 } }, at(7)),
      event('$groupidentify', 'alice', { $group_type: 'company', $group_key: 'globex', $group_set: { name: 'Globex' } }, at(8)),
      event('$pageview', 'alice', { $groups: { company: 'acme', project: 'p1' } }, at(9)),
    ],
    projectId,
  );
});
after(() => t.close());

describe('GET persons/', () => {
  test('lists the project`s persons, newest first, in PostHog`s person shape', async () => {
    const { status, body } = await get(url('persons/'));
    assert.equal(status, 200);
    assert.equal(body.count, 4);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(
      body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids),
      [['dave'], ['carol'], ['bob'], ['anon-alice', 'alice']],
    );
    const alice = body.results[3];
    const stored = (await personOf(t, 'alice', projectId))!;
    assert.deepEqual(Object.keys(alice).sort(), ['created_at', 'distinct_ids', 'id', 'is_identified', 'last_seen_at', 'name', 'properties', 'uuid']);
    assert.equal(alice.id, stored.uuid);
    assert.equal(alice.uuid, stored.uuid);
    assert.equal(alice.name, 'Alice@Example.com');
    assert.equal(alice.is_identified, true);
    assert.equal(alice.created_at, at(1).toISOString());
    assert.match(alice.created_at, ISO_UTC);
    assert.equal(alice.last_seen_at, null);
    assert.deepEqual(alice.properties, { initial_referrer: 'google', email: 'Alice@Example.com', name: 'Alice A', plan: 'pro', age: 31 });
    assert.equal(body.results[2].is_identified, false);
  });

  test('name: email, else name or username, else the first distinct id', async () => {
    const { body } = await get(url('persons/'));
    assert.deepEqual(
      body.results.map((p: { name: string }) => p.name),
      ['dave_d', 'carol', 'bob@example.org', 'Alice@Example.com'],
    );
  });

  test('limit/offset pagination with absolute next/previous links keeping the other parameters', async () => {
    const first = await get(url('persons/?limit=2&properties=[]'));
    assert.equal(first.status, 200);
    assert.equal(first.body.count, 4);
    assert.deepEqual(first.body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids[0]), ['dave', 'carol']);
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('offset'), '2');
    assert.equal(next.searchParams.get('limit'), '2');
    assert.equal(next.searchParams.get('properties'), '[]');
    const second = await get(`${next.pathname}${next.search}`);
    assert.deepEqual(second.body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids[1] ?? p.distinct_ids[0]), ['bob', 'alice']);
    assert.equal(second.body.next, null);
    assert.notEqual(second.body.previous, null);
    assert.equal((await get(url('persons/?limit=-1'))).status, 400);
    assert.equal((await get(url('persons/?offset=x'))).status, 400);
  });

  test('distinct_id: exact, any of the person`s ids', async () => {
    assert.deepEqual(await listDistinctIds('distinct_id=anon-alice'), [['anon-alice', 'alice']]);
    assert.deepEqual(await listDistinctIds('distinct_id=alic'), []);
    assert.deepEqual(await listDistinctIds('distinct_id=bob'), [['bob']]);
  });

  test('search: a distinct id exactly, or part of email or name, case-insensitive', async () => {
    assert.deepEqual(await listDistinctIds('search=carol'), [['carol']]);
    assert.deepEqual(await listDistinctIds('search=car'), []);
    assert.deepEqual(await listDistinctIds('search=EXAMPLE'), [['bob'], ['anon-alice', 'alice']]);
    assert.deepEqual(await listDistinctIds('search=bob%20b'), [['bob']]);
    assert.deepEqual(await listDistinctIds('search=%20%20'), [['dave'], ['carol'], ['bob'], ['anon-alice', 'alice']]);
    const stored = (await personOf(t, 'dave', projectId))!;
    assert.deepEqual(await listDistinctIds(`search=${stored.uuid}`), [['dave']]);
  });

  test('email: exact', async () => {
    assert.deepEqual(await listDistinctIds('email=bob@example.org'), [['bob']]);
    assert.deepEqual(await listDistinctIds('email=bob@example'), []);
  });

  const props = (filters: unknown) => `properties=${encodeURIComponent(JSON.stringify(filters))}`;

  test('properties: exact (one value or a list), is_not', async () => {
    assert.deepEqual(await listDistinctIds(props([{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }])), [['carol'], ['anon-alice', 'alice']]);
    assert.deepEqual(await listDistinctIds(props([{ key: 'plan', value: 'pro' }, { key: 'age', value: 31 }])), [['anon-alice', 'alice']]);
    assert.deepEqual(await listDistinctIds(props([{ key: 'plan', value: ['free', 'none'], operator: 'exact' }])), [['bob']]);
    assert.deepEqual(await listDistinctIds(props([{ key: 'age', value: '100' }])), [['carol']]);
    assert.deepEqual(await listDistinctIds(props([{ key: 'plan', value: 'pro', operator: 'is_not' }])), [['dave'], ['bob']]);
  });

  test('properties: is_set and is_not_set (a null value is not set)', async () => {
    assert.deepEqual(await listDistinctIds(props([{ key: 'email', operator: 'is_set', type: 'person' }])), [['bob'], ['anon-alice', 'alice']]);
    assert.deepEqual(await listDistinctIds(props([{ key: 'email', operator: 'is_not_set' }])), [['dave'], ['carol']]);
    assert.deepEqual(await listDistinctIds(props([{ key: 'nothing', operator: 'is_set' }])), []);
  });

  test('properties: icontains, numeric comparisons, OR groups, the legacy object form', async () => {
    assert.deepEqual(await listDistinctIds(props([{ key: 'email', value: 'EXAMPLE.COM', operator: 'icontains' }])), [['anon-alice', 'alice']]);
    assert.deepEqual(await listDistinctIds(props([{ key: 'age', value: 31, operator: 'gt' }])), [['dave'], ['carol']]);
    assert.deepEqual(await listDistinctIds(props([{ key: 'age', value: '31', operator: 'lte' }])), [['bob'], ['anon-alice', 'alice']]);
    assert.deepEqual(
      await listDistinctIds(props({ type: 'OR', values: [{ key: 'plan', value: 'free' }, { key: 'username', operator: 'is_set' }] })),
      [['dave'], ['bob']],
    );
    assert.deepEqual(await listDistinctIds(props({ plan: 'pro', age__gt: 50 })), [['carol']]);
  });

  test('properties: invalid JSON, unknown operators and non-person types are 400 on properties', async () => {
    for (const query of [
      'properties=%5Bnot-json',
      props([{ key: 'plan', value: 'pro', operator: 'regex_of_doom' }]),
      props([{ key: 'plan', value: 'pro', type: 'event' }]),
      props([{ value: 'pro' }]),
      props('plan'),
    ]) {
      const { status, body } = await get(url(`persons/?${query}`));
      assert.equal(status, 400, query);
      assert.equal(body.type, 'validation_error');
      assert.equal(body.attr, 'properties');
    }
  });

  test('persons of other projects never appear', async () => {
    const { body } = await get(url('persons/', otherProjectId));
    assert.deepEqual(body.results.map((p: { distinct_ids: string[] }) => p.distinct_ids), [['alice']]);
  });
});

describe('GET persons/{id}/', () => {
  test('by uuid and by integer id; trailing slash optional', async () => {
    const stored = (await personOf(t, 'alice', projectId))!;
    const byUuid = await get(url(`persons/${stored.uuid}/`));
    assert.equal(byUuid.status, 200);
    assert.equal(byUuid.body.id, stored.uuid);
    assert.deepEqual(byUuid.body.distinct_ids, ['anon-alice', 'alice']);
    const byId = await get(url(`persons/${stored.id}`));
    assert.equal(byId.status, 200);
    assert.deepEqual(byId.body, byUuid.body);
  });

  test('unknown, malformed, or another project`s person: 404', async () => {
    const foreign = (await personOf(t, 'alice', otherProjectId))!;
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-person', '99999999', String(foreign.id), foreign.uuid]) {
      const { status, body } = await get(url(`persons/${id}/`));
      assert.equal(status, 404, id);
      assert.deepEqual(body, NOT_FOUND);
    }
  });

  test('persons are read-only here: other methods are 405', async () => {
    const stored = (await personOf(t, 'bob', projectId))!;
    const res = await t.request({ method: 'DELETE', url: url(`persons/${stored.uuid}/`) });
    assert.equal(res.statusCode, 405);
    assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
    assert.ok(await personOf(t, 'bob', projectId));
  });
});

describe('groups', () => {
  test('GET groups_types/: the mappings by index', async () => {
    const { status, body } = await get(url('groups_types/'));
    assert.equal(status, 200);
    assert.deepEqual(body, [
      { group_type: 'company', group_type_index: 0, name_singular: null, name_plural: null },
      { group_type: 'project', group_type_index: 1, name_singular: null, name_plural: null },
    ]);
    assert.deepEqual((await get(url('groups_types', otherProjectId))).body, []);
  });

  test('GET groups/?group_type_index=N: paginated, newest first; search by key or name', async () => {
    const { status, body } = await get(url('groups/?group_type_index=0'));
    assert.equal(status, 200);
    assert.equal(body.count, 2);
    assert.deepEqual(body.results, [
      { group_type_index: 0, group_key: 'globex', group_properties: { name: 'Globex' }, created_at: at(8).toISOString() },
      { group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme Inc', size: 10 }, created_at: at(7).toISOString() },
    ]);
    const page = await get(url('groups/?group_type_index=0&limit=1'));
    assert.equal(page.body.results.length, 1);
    assert.match(page.body.next, /offset=1/);
    assert.deepEqual((await get(url('groups/?group_type_index=0&search=INC'))).body.results.map((g: { group_key: string }) => g.group_key), ['acme']);
    assert.deepEqual((await get(url('groups/?group_type_index=0&search=glob'))).body.results.map((g: { group_key: string }) => g.group_key), ['globex']);
    assert.equal((await get(url('groups/?group_type_index=1'))).body.count, 0);
  });

  test('GET groups/: group_type_index is required and must be 0–4', async () => {
    const missing = await get(url('groups/'));
    assert.equal(missing.status, 400);
    assert.equal(missing.body.attr, 'group_type_index');
    assert.equal((await get(url('groups/?group_type_index=5'))).status, 400);
    assert.equal((await get(url('groups/?group_type_index=x'))).status, 400);
  });

  test('GET groups/find: one group by index and key; 404 otherwise', async () => {
    const found = await get(url('groups/find?group_type_index=0&group_key=acme'));
    assert.equal(found.status, 200);
    assert.deepEqual(found.body, { group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme Inc', size: 10 }, created_at: at(7).toISOString() });
    const missing = await get(url('groups/find?group_type_index=1&group_key=acme'));
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, NOT_FOUND);
    assert.equal((await get(url('groups/find?group_type_index=0&group_key=acme', otherProjectId))).status, 404);
    assert.equal((await get(url('groups/find?group_type_index=0'))).status, 400);
  });
});

describe('authentication and scopes', () => {
  test('no key: 401; an unknown key: 401', async () => {
    for (const path of [url('persons/'), url('groups_types/'), url('groups/?group_type_index=0')]) {
      const none = await t.request({ method: 'GET', url: path, key: null });
      assert.equal(none.statusCode, 401);
      assert.equal(none.json().code, 'not_authenticated');
      const unknown = await t.request({ method: 'GET', url: path, key: 'phx_nope' });
      assert.equal(unknown.statusCode, 401);
    }
  });

  test('persons need person:read (write implies it); groups need group:read', async () => {
    const flagsOnly = await keyWith(['feature_flag:read']);
    const persons = await get(url('persons/'), flagsOnly);
    assert.equal(persons.status, 403);
    assert.deepEqual(persons.body, {
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'person:read'",
      attr: null,
    });
    const stored = (await personOf(t, 'bob', projectId))!;
    assert.equal((await get(url(`persons/${stored.uuid}/`), flagsOnly)).status, 403);
    assert.equal((await get(url('groups_types/'), flagsOnly)).body.detail, "API key missing required scope 'group:read'");
    assert.equal((await get(url('groups/find?group_type_index=0&group_key=acme'), flagsOnly)).status, 403);

    const personRead = await keyWith(['person:read']);
    assert.equal((await get(url('persons/'), personRead)).status, 200);
    assert.equal((await get(url(`persons/${stored.uuid}`), personRead)).status, 200);
    assert.equal((await get(url('groups_types/'), personRead)).status, 403);
    const personWrite = await keyWith(['person:write', 'group:read']);
    assert.equal((await get(url('persons/'), personWrite)).status, 200);
    assert.equal((await get(url('groups_types/'), personWrite)).status, 200);
    assert.equal((await get(url('groups/?group_type_index=0'), personWrite)).status, 200);
  });

  test('@current works; an unknown project is 404', async () => {
    assert.equal((await get(url('persons/', '@current'))).status, 200);
    assert.equal((await get(url('persons/', 999999))).status, 404);
  });
});

describe('last_seen_at', () => {
  test("the time of the newest event of any of the person's distinct ids, exact to the millisecond, in its own project only", async () => {
    const insert = (project: number, distinctId: string, time: string) =>
      t.db.pool.query("INSERT INTO events (project_id, uuid, event, distinct_id, timestamp) VALUES ($1, gen_random_uuid(), 'e', $2, $3)", [project, distinctId, time]);
    await insert(projectId, 'alice', '2026-03-01T10:00:00.000Z');
    await insert(projectId, 'anon-alice', '2026-03-01T10:17:42.123Z');
    await insert(otherProjectId, 'alice', '2026-05-01T00:00:00.000Z');
    await insert(projectId, 'bob', '2026-02-01T08:59:59.999Z');
    const { body } = await get(url('persons/'));
    const seen = Object.fromEntries(body.results.map((p: { distinct_ids: string[]; last_seen_at: string | null }) => [p.distinct_ids.at(-1), p.last_seen_at]));
    assert.deepEqual(seen, { alice: '2026-03-01T10:17:42.123Z', bob: '2026-02-01T08:59:59.999Z', carol: null, dave: null });
    const alice = body.results.find((p: { distinct_ids: string[] }) => p.distinct_ids.includes('alice'));
    assert.equal((await get(url(`persons/${alice.uuid}/`))).body.last_seen_at, '2026-03-01T10:17:42.123Z');
  });
});
