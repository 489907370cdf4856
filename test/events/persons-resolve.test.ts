import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { personUuidFor } from '../../src/events/persons/identity.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { event, fresh, groupTypes, newProject, personCount, personExists, personOf, resolve } from './persons-support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('new and known distinct ids', () => {
  test('an unknown distinct id gets a new, unidentified person created at its first event', async () => {
    const a = fresh('a');
    const b = fresh('b');
    const first = event('$pageview', a);
    const before = await personCount(t);
    const map = await resolve(t, [first, event('$pageview', b), event('$pageview', a)]);
    assert.equal(await personCount(t), before + 2);
    const pa = await personOf(t, a);
    const pb = await personOf(t, b);
    assert.ok(pa && pb);
    assert.notEqual(pa.id, pb.id);
    assert.equal(map.get(a), pa.uuid);
    assert.equal(map.get(b), pb.uuid);
    assert.equal(pa.uuid, personUuidFor(t.projectId, a));
    assert.equal(pa.is_identified, false);
    assert.deepEqual(pa.properties, {});
    assert.deepEqual(pa.distinct_ids, [a]);
    assert.equal(pa.version, 0);
    assert.equal(pa.created_at.toISOString(), first.timestamp.toISOString());
  });

  test('a known distinct id keeps its person; nothing is created or rewritten', async () => {
    const a = fresh('a');
    const firstMap = await resolve(t, [event('$pageview', a)]);
    const before = await personCount(t);
    const map = await resolve(t, [event('$pageview', a), event('$autocapture', a)]);
    assert.equal(await personCount(t), before);
    assert.equal(map.get(a), firstMap.get(a));
    assert.equal((await personOf(t, a))!.version, 0);
  });

  test('an empty batch does nothing', async () => {
    assert.equal((await resolve(t, [])).size, 0);
  });
});

describe('$set, $set_once, $unset', () => {
  test('applied in event order within a batch: later $set wins, $set_once only fills missing keys, $unset removes', async () => {
    const a = fresh('a');
    await resolve(t, [
      event('$pageview', a, { $set: { a: 1, b: 1 }, $set_once: { c: 1 } }),
      event('$pageview', a, { $set_once: { a: 2, d: 2 }, $set: { b: 2 } }),
      event('$pageview', a, { $unset: ['c'] }),
      event('$pageview', a, { $set_once: { c: 3 } }),
    ]);
    assert.deepEqual((await personOf(t, a))!.properties, { a: 1, b: 2, c: 3, d: 2 });
  });

  test('within one event: $set_once, then $set, then $unset', async () => {
    const a = fresh('a');
    await resolve(t, [event('$pageview', a, { $set_once: { k: 'once', z: 1 }, $set: { k: 'set', z: 2 }, $unset: ['z'] })]);
    assert.deepEqual((await personOf(t, a))!.properties, { k: 'set' });
  });

  test('across batches; a key holding null counts as set for $set_once; version goes up once per changing batch', async () => {
    const a = fresh('a');
    await resolve(t, [event('$pageview', a, { $set: { plan: 'free', nothing: null } })]);
    assert.equal((await personOf(t, a))!.version, 0);
    await resolve(t, [
      event('$pageview', a, { $set_once: { plan: 'pro', nothing: 'x', first_seen: 'today' } }),
      event('$pageview', a, { $set: { plan: 'team' } }),
    ]);
    let person = (await personOf(t, a))!;
    assert.deepEqual(person.properties, { plan: 'team', nothing: null, first_seen: 'today' });
    assert.equal(person.version, 1);
    // Setting the same values and unsetting absent keys changes nothing: no write, no new version.
    await resolve(t, [event('$pageview', a, { $set: { plan: 'team' }, $set_once: { plan: 'x' }, $unset: ['absent'] })]);
    person = (await personOf(t, a))!;
    assert.equal(person.version, 1);
    await resolve(t, [event('$pageview', a, { $unset: ['nothing'] })]);
    person = (await personOf(t, a))!;
    assert.deepEqual(person.properties, { plan: 'team', first_seen: 'today' });
    assert.equal(person.version, 2);
  });

  test('malformed $set / $unset values are ignored; nested values are stored as sent', async () => {
    const a = fresh('a');
    await resolve(t, [
      event('$pageview', a, { $set: 'nope', $set_once: ['x'], $unset: 'plan' }),
      event('$pageview', a, { $set: { nested: { deep: [1, { two: 2 }] } } }),
      // A key named __proto__ (as JSON.parse makes it) is stored like any other, not swallowed.
      event('$pageview', a, JSON.parse('{"$set": {"__proto__": {"polluted": true}}}')),
    ]);
    const { rows } = await t.db.pool.query(
      `SELECT properties - '__proto__' AS rest, properties -> '__proto__' AS proto FROM persons WHERE uuid = $1`,
      [(await personOf(t, a))!.uuid],
    );
    assert.deepEqual(rows[0].rest, { nested: { deep: [1, { two: 2 }] } });
    assert.deepEqual(rows[0].proto, { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('properties ingestion sets itself', () => {
  test('every survey shown stamps $last_seen_survey_date with the latest sighting; other events do not', async () => {
    const a = fresh('a');
    const early = new Date('2026-03-01T10:00:00.000Z');
    const late = new Date('2026-03-05T10:00:00.000Z');
    await resolve(t, [event('$pageview', a, {}, early)]);
    assert.equal((await personOf(t, a))!.properties.$last_seen_survey_date, undefined);
    await resolve(t, [event('survey shown', a, { $survey_id: 'x' }, late), event('survey shown', a, { $survey_id: 'x' }, early)]);
    assert.equal((await personOf(t, a))!.properties.$last_seen_survey_date, late.toISOString());
    await resolve(t, [event('survey sent', a, { $survey_id: 'x' }, new Date('2026-03-09T10:00:00.000Z'))]);
    assert.equal((await personOf(t, a))!.properties.$last_seen_survey_date, late.toISOString());
  });
});

describe('$identify', () => {
  test('merges an anonymous person into the identified one: target properties win, ids move, source deleted', async () => {
    const anon = fresh('anon');
    const anonOther = fresh('anon-other');
    const user = fresh('user');
    // The anonymous person, created first, with a second distinct id outside the merging batch.
    await resolve(t, [
      event('$pageview', anon, { $set: { from_anon: 1, shared: 'anon' } }),
      event('$create_alias', anon, { alias: anonOther }),
    ]);
    const source = (await personOf(t, anon))!;
    assert.equal(source.is_identified, true, 'alias marks the person identified');
    // Make it anonymous again for this scenario: only unidentified persons are merged away.
    await t.db.pool.query('UPDATE persons SET is_identified = false WHERE id = $1', [source.id]);
    await resolve(t, [event('$identify', user, { $set: { shared: 'user' } })]);
    const target = (await personOf(t, user))!;
    assert.equal(target.is_identified, true);

    const map = await resolve(t, [event('$identify', user, { $anon_distinct_id: anon, $set: { after: true } })]);
    const merged = (await personOf(t, user))!;
    assert.equal(merged.id, target.id);
    assert.deepEqual(merged.properties, { from_anon: 1, shared: 'user', after: true });
    // In the order they were first attached, whichever person they were attached to.
    assert.deepEqual(merged.distinct_ids, [anon, anonOther, user]);
    assert.equal(merged.is_identified, true);
    assert.equal(merged.created_at.toISOString(), source.created_at.toISOString(), 'the earlier creation time stays');
    assert.ok(merged.version > target.version);
    assert.equal(await personExists(t, source.id), false);
    assert.equal((await personOf(t, anonOther))!.id, target.id);
    assert.equal(map.get(anon), target.uuid);
    assert.equal(map.get(user), target.uuid);
  });

  test('only the anonymous id has a person: the identified id joins it', async () => {
    const anon = fresh('anon');
    const user = fresh('user');
    const before = await resolve(t, [event('$pageview', anon, { $set: { a: 1 } })]);
    const map = await resolve(t, [event('$identify', user, { $anon_distinct_id: anon, $set: { email: 'u@example.com' } })]);
    const person = (await personOf(t, user))!;
    assert.equal(person.uuid, before.get(anon));
    assert.deepEqual(person.distinct_ids, [anon, user]);
    assert.deepEqual(person.properties, { a: 1, email: 'u@example.com' });
    assert.equal(person.is_identified, true);
    assert.equal(map.get(user), person.uuid);
    assert.equal(person.version, 1);
  });

  test('only the identified id has a person: the anonymous id joins it', async () => {
    const anon = fresh('anon');
    const user = fresh('user');
    const before = await resolve(t, [event('$pageview', user)]);
    await resolve(t, [event('$identify', user, { $anon_distinct_id: anon })]);
    const person = (await personOf(t, anon))!;
    assert.equal(person.uuid, before.get(user));
    assert.deepEqual(person.distinct_ids, [user, anon]);
    assert.equal(person.is_identified, true);
  });

  test('neither id known, within one batch: anonymous events then $identify make one identified person', async () => {
    const anon = fresh('anon');
    const user = fresh('user');
    const before = await personCount(t);
    const map = await resolve(t, [
      event('$pageview', anon, { $set_once: { initial: 'landing' } }),
      event('$identify', user, { $anon_distinct_id: anon, $set: { email: 'x@example.com' } }),
      event('$pageview', user),
    ]);
    assert.equal(await personCount(t), before + 1);
    const person = (await personOf(t, user))!;
    assert.deepEqual(new Set(person.distinct_ids), new Set([anon, user]));
    assert.deepEqual(person.properties, { initial: 'landing', email: 'x@example.com' });
    assert.equal(person.is_identified, true);
    assert.equal(map.get(anon), person.uuid);
    assert.equal(map.get(user), person.uuid);
  });

  test('a stored anonymous person merged into a person created earlier in the same batch', async () => {
    const anon = fresh('anon');
    const anonOther = fresh('anon-other');
    const user = fresh('user');
    const created = event('$pageview', anon, { $set: { a: 1, shared: 'anon' } });
    await resolve(t, [created, event('$create_alias', anon, { alias: anonOther })]);
    const source = (await personOf(t, anon))!;
    await t.db.pool.query('UPDATE persons SET is_identified = false WHERE id = $1', [source.id]);
    const before = await personCount(t);
    const map = await resolve(t, [
      event('$pageview', user, { $set: { shared: 'user' } }),
      event('$identify', user, { $anon_distinct_id: anon }),
    ]);
    assert.equal(await personCount(t), before, 'one created, one merged away');
    assert.equal(await personExists(t, source.id), false);
    const person = (await personOf(t, anonOther))!;
    assert.equal(person.uuid, personUuidFor(t.projectId, user));
    assert.deepEqual(person.distinct_ids, [anon, anonOther, user]);
    assert.deepEqual(person.properties, { a: 1, shared: 'user' });
    assert.equal(person.is_identified, true);
    assert.equal(person.created_at.toISOString(), created.timestamp.toISOString());
    assert.equal(map.get(anon), person.uuid);
  });

  test('$anon_distinct_id equal to the distinct id links nothing and identifies the person', async () => {
    const user = fresh('user');
    const before = await personCount(t);
    await resolve(t, [event('$identify', user, { $anon_distinct_id: user })]);
    assert.equal(await personCount(t), before + 1);
    const person = (await personOf(t, user))!;
    assert.deepEqual(person.distinct_ids, [user]);
    assert.equal(person.is_identified, true);
  });

  test('both persons identified: no merge; each keeps its ids; the event still updates its own person', async () => {
    const one = fresh('one');
    const two = fresh('two');
    await resolve(t, [event('$identify', one, { $set: { who: 'one' } }), event('$identify', two, { $set: { who: 'two' } })]);
    const before = await personCount(t);
    const map = await resolve(t, [event('$identify', one, { $anon_distinct_id: two, $set: { touched: true } })]);
    assert.equal(await personCount(t), before);
    const p1 = (await personOf(t, one))!;
    const p2 = (await personOf(t, two))!;
    assert.notEqual(p1.id, p2.id);
    assert.deepEqual(p1.distinct_ids, [one]);
    assert.deepEqual(p2.distinct_ids, [two]);
    assert.deepEqual(p1.properties, { who: 'one', touched: true });
    assert.deepEqual(p2.properties, { who: 'two' });
    assert.equal(map.get(one), p1.uuid);
    assert.equal(map.get(two), p2.uuid);
  });

  test('an identified anonymous-side person is not merged into an unidentified one either', async () => {
    const target = fresh('target');
    const identified = fresh('identified');
    await resolve(t, [event('$pageview', target), event('$identify', identified)]);
    await resolve(t, [event('$identify', target, { $anon_distinct_id: identified })]);
    assert.notEqual((await personOf(t, target))!.id, (await personOf(t, identified))!.id);
    assert.equal((await personOf(t, target))!.is_identified, true);
  });

  test('placeholder ids ("anonymous", "null"…) are never linked', async () => {
    const user = fresh('user');
    const other = fresh('other');
    await resolve(t, [event('$pageview', 'anonymous'), event('$pageview', other)]);
    await resolve(t, [event('$identify', user, { $anon_distinct_id: 'anonymous' }), event('$identify', 'null', { $anon_distinct_id: other })]);
    assert.deepEqual((await personOf(t, user))!.distinct_ids, [user]);
    assert.deepEqual((await personOf(t, 'anonymous'))!.distinct_ids, ['anonymous']);
    assert.deepEqual((await personOf(t, other))!.distinct_ids, [other]);
  });

  test('$identify without an anonymous id marks the person identified', async () => {
    const user = fresh('user');
    await resolve(t, [event('$pageview', user)]);
    await resolve(t, [event('$identify', user)]);
    const person = (await personOf(t, user))!;
    assert.equal(person.is_identified, true);
    assert.equal(person.version, 1);
  });
});

describe('$create_alias and $merge_dangerously', () => {
  test('alias links properties.alias to the distinct id: attach when new, merge when both unidentified', async () => {
    const main = fresh('main');
    const alias = fresh('alias');
    const other = fresh('other');
    await resolve(t, [event('$pageview', main, { $set: { k: 'main' } })]);
    await resolve(t, [event('$create_alias', main, { alias })]);
    assert.equal((await personOf(t, alias))!.id, (await personOf(t, main))!.id);

    await resolve(t, [event('$pageview', other, { $set: { k: 'other', o: 1 } })]);
    const otherId = (await personOf(t, other))!.id;
    await t.db.pool.query('UPDATE persons SET is_identified = false WHERE id = $1', [(await personOf(t, main))!.id]);
    const map = await resolve(t, [event('$create_alias', main, { alias: other })]);
    const person = (await personOf(t, main))!;
    assert.deepEqual(new Set(person.distinct_ids), new Set([main, alias, other]));
    assert.deepEqual(person.properties, { k: 'main', o: 1 });
    assert.equal(await personExists(t, otherId), false);
    assert.equal(map.get(other), person.uuid);
  });

  test('alias does not merge an identified person away; $merge_dangerously does', async () => {
    const main = fresh('main');
    const other = fresh('other');
    await resolve(t, [event('$identify', main), event('$identify', other, { $set: { o: 1 } })]);
    await resolve(t, [event('$create_alias', main, { alias: other })]);
    assert.notEqual((await personOf(t, main))!.id, (await personOf(t, other))!.id);
    await resolve(t, [event('$merge_dangerously', main, { alias: other })]);
    const person = (await personOf(t, main))!;
    assert.deepEqual(new Set(person.distinct_ids), new Set([main, other]));
    assert.deepEqual(person.properties, { o: 1 });
  });
});

describe('events that do not process persons', () => {
  test('$process_person_profile: false creates nothing and maps to the uuid the person will get', async () => {
    const a = fresh('a');
    const before = await personCount(t);
    const map = await resolve(t, [event('$pageview', a, { $process_person_profile: false, $set: { x: 1 } })]);
    assert.equal(await personCount(t), before);
    assert.equal(map.get(a), personUuidFor(t.projectId, a));
    const later = await resolve(t, [event('$pageview', a)]);
    assert.equal(later.get(a), map.get(a));
    assert.deepEqual((await personOf(t, a))!.properties, {});
    // An existing person is named, and not changed.
    const again = await resolve(t, [event('$pageview', a, { $process_person_profile: false, $set: { x: 2 } })]);
    assert.equal(again.get(a), map.get(a));
    assert.deepEqual((await personOf(t, a))!.properties, {});
  });

  test('$groupidentify neither creates nor changes a person', async () => {
    const projectId = await newProject(t, 'groupidentify persons');
    await resolve(t, [event('$groupidentify', '$company_acme', { $group_type: 'company', $group_key: 'acme', $set: { x: 1 } })], projectId);
    assert.equal(await personCount(t, projectId), 0);
  });
});

describe('groups', () => {
  test('$groupidentify creates the group and its type mapping; later $group_set merges (later wins)', async () => {
    const projectId = await newProject(t, 'groups');
    const first = event('$groupidentify', 'u1', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', size: 1 } });
    await resolve(
      t,
      [first, event('$groupidentify', 'u1', { $group_type: 'company', $group_key: 'acme', $group_set: { size: 2, plan: 'free' } })],
      projectId,
    );
    assert.deepEqual(await groupTypes(t, projectId), { company: 0 });
    await resolve(t, [event('$groupidentify', 'u2', { $group_type: 'company', $group_key: 'acme', $group_set: { plan: 'pro' } })], projectId);
    await resolve(t, [event('$groupidentify', 'u2', { $group_type: 'company', $group_key: 42 })], projectId);
    const { rows } = await t.db.pool.query(
      'SELECT group_type_index, group_key, group_properties, created_at FROM groups WHERE project_id = $1 ORDER BY group_key',
      [projectId],
    );
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[0].group_key, '42');
    assert.deepEqual(rows[0].group_properties, {});
    assert.deepEqual(rows[1].group_properties, { name: 'Acme', size: 2, plan: 'pro' });
    assert.equal(rows[1].created_at.toISOString(), first.timestamp.toISOString());
  });

  test('$groups on any event maps its types at the next free index; a sixth type is ignored without error', async () => {
    const projectId = await newProject(t, 'five types');
    await resolve(t, [event('$pageview', 'u', { $groups: { company: 'acme', project: 'p1' } })], projectId);
    assert.deepEqual(await groupTypes(t, projectId), { company: 0, project: 1 });
    await resolve(
      t,
      [
        event('$pageview', 'u', { $groups: { company: 'acme', team: 't' } }),
        event('$groupidentify', 'u', { $group_type: 'region', $group_key: 'eu' }),
        event('$pageview', 'u', { $groups: { workspace: 'w' } }),
      ],
      projectId,
    );
    assert.deepEqual(await groupTypes(t, projectId), { company: 0, project: 1, team: 2, region: 3, workspace: 4 });
    await resolve(
      t,
      [
        event('$pageview', 'u', { $groups: { sixth: 'x' } }),
        event('$groupidentify', 'u', { $group_type: 'sixth', $group_key: 'x', $group_set: { a: 1 } }),
      ],
      projectId,
    );
    assert.deepEqual(await groupTypes(t, projectId), { company: 0, project: 1, team: 2, region: 3, workspace: 4 });
    const { rows } = await t.db.pool.query('SELECT group_type_index, group_key FROM groups WHERE project_id = $1', [projectId]);
    assert.deepEqual(rows, [{ group_type_index: 3, group_key: 'eu' }]);
  });
});
