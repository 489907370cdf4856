import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PoolClient } from '../../src/db/pool.ts';
import { DefinitionsSeen, recordDefinitions } from '../../src/events/definitions/ingest.ts';
import { detectPropertyType } from '../../src/events/definitions/property-types.ts';
import type { IncomingEvent } from '../../src/events/types.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createDefinition, propertiesUrl, secondProject } from './definitions-support.ts';
import { handOpened } from '../helpers/database.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const HOUR = 3_600_000;
const T0 = Date.parse('2030-05-06T10:17:42.123Z');

function event(name: string, properties: Record<string, unknown> = {}): IncomingEvent {
  return { uuid: randomUUID(), event: name, distinctId: 'someone', properties, timestamp: new Date(T0) };
}

/** A clock the test moves. */
function clock(start = T0) {
  const c = { now: start, fn: () => c.now };
  return c;
}

/**
 * Runs recordDefinitions in its own transaction (committed unless `rollback`), counting the
 * statements it sends.
 */
async function record(
  events: IncomingEvent[],
  seen: DefinitionsSeen,
  options: { projectId?: number; rollback?: boolean } = {},
): Promise<number> {
  const client = await t.db.pool.connect();
  let statements = 0;
  const counting = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'query') {
        return (...args: unknown[]) => {
          statements += 1;
          return (target.query as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  }) as PoolClient;
  try {
    await client.query('BEGIN');
    await recordDefinitions(handOpened(counting), options.projectId ?? t.projectId, events, seen);
    await client.query(options.rollback ? 'ROLLBACK' : 'COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
  return statements;
}

async function definition(name: string, projectId = t.projectId) {
  const { rows } = await t.db.pool.query('SELECT * FROM event_definitions WHERE project_id = $1 AND name = $2', [projectId, name]);
  return rows[0];
}

async function properties(type: number, projectId = t.projectId): Promise<Record<string, string | null>> {
  const { rows } = await t.db.pool.query(
    'SELECT name, property_type, group_type_index FROM property_definitions WHERE project_id = $1 AND type = $2',
    [projectId, type],
  );
  return Object.fromEntries(rows.map((r) => [r.group_type_index === null ? r.name : `${r.group_type_index}:${r.name}`, r.property_type]));
}

async function pairs(eventName: string, projectId = t.projectId): Promise<string[]> {
  const { rows } = await t.db.pool.query('SELECT property FROM event_properties WHERE project_id = $1 AND event = $2 ORDER BY property', [
    projectId,
    eventName,
  ]);
  return rows.map((r) => r.property);
}

describe('type detection', () => {
  test('ISO-8601-like strings are DateTime, other strings String, numbers Numeric, booleans Boolean', () => {
    const cases: [string, unknown, string | null][] = [
      ['p', '2024-03-01', 'DateTime'],
      ['p', '2024-03-01T10:00:00Z', 'DateTime'],
      ['p', '2024-03-01 10:00', 'DateTime'],
      ['p', '2024-03-01T10:00:00.123456+02:00', 'DateTime'],
      ['p', '2024-13-01', 'String'],
      ['p', '2024-03-01T25:00:00Z', 'String'],
      ['p', '1709287200', 'String'],
      ['p', 'hello', 'String'],
      ['p', '', 'String'],
      ['p', 42, 'Numeric'],
      ['p', -0.5, 'Numeric'],
      ['p', true, 'Boolean'],
      ['p', null, null],
      ['p', { a: 1 }, null],
      ['p', [1], null],
      ['utm_source', 7, 'String'],
      ['utm_campaign', '2024-03-01', 'String'],
      ['$feature/beta', true, 'String'],
      ['$feature/beta', null, null],
    ];
    for (const [name, value, expected] of cases) assert.equal(detectPropertyType(name, value), expected, `${name}=${JSON.stringify(value)}`);
  });
});

describe('recordDefinitions', () => {
  test('records the event, its properties, person properties; skips the special keys and long names', async () => {
    const seen = new DefinitionsSeen({ now: clock().fn });
    const long = 'x'.repeat(201);
    const longest = 'y'.repeat(200);
    await record(
      [
        event('file_uploaded', {
          file_name: 'a.txt',
          size: 12.5,
          ok: true,
          at: '2024-03-01T10:00:00Z',
          obj: { a: 1 },
          nothing: null,
          utm_source: 5,
          '$feature/beta': true,
          numeric_string: '42',
          token: 'phc_x',
          $groups: { company: 'acme' },
          $group_0: 'acme',
          $unset: ['gone'],
          $set: { plan: 'pro', seats: 3 },
          $set_once: { first_seen: '2024-01-01T00:00:00.000+02:00' },
          [long]: 1,
          [longest]: 1,
        }),
      ],
      seen,
    );
    assert.deepEqual(await properties(1), {
      file_name: 'String',
      size: 'Numeric',
      ok: 'Boolean',
      at: 'DateTime',
      obj: null,
      nothing: null,
      utm_source: 'String',
      '$feature/beta': 'String',
      numeric_string: 'String',
      [longest]: 'Numeric',
    });
    assert.deepEqual(await properties(2), { plan: 'String', seats: 'Numeric', first_seen: 'DateTime' });
    assert.deepEqual(
      await pairs('file_uploaded'),
      ['$feature/beta', 'at', 'file_name', 'nothing', 'numeric_string', 'obj', 'ok', 'size', 'utm_source', longest].sort(),
    );
    const { rows } = await t.db.pool.query("SELECT is_numerical FROM property_definitions WHERE name IN ('size', 'ok') AND type = 1 ORDER BY name");
    assert.deepEqual(rows, [{ is_numerical: false }, { is_numerical: true }]);

    const row = await definition('file_uploaded');
    assert.equal(row.created_at.toISOString(), '2030-05-06T10:00:00.000Z');
    assert.equal(row.last_seen_at.toISOString(), '2030-05-06T10:00:00.000Z');
  });

  test('skips $$plugin_metrics and event names over 200 characters; NUL becomes U+FFFD', async () => {
    const seen = new DefinitionsSeen({ now: clock().fn });
    await record(
      [
        event('$$plugin_metrics', { plugin_prop: 1 }),
        event('e'.repeat(201), { long_event_prop: 1 }),
        event('f'.repeat(200)),
        event('nul\u0000event', { 'nul\u0000prop': 'v' }),
        event(''),
      ],
      seen,
    );
    assert.equal(await definition('$$plugin_metrics'), undefined);
    assert.equal(await definition('e'.repeat(201)), undefined);
    assert.ok(await definition('f'.repeat(200)));
    assert.ok(await definition('nul\uFFFDevent'));
    assert.deepEqual(await pairs('nul\uFFFDevent'), ['nul\uFFFDprop']);
    const { rowCount } = await t.db.pool.query("SELECT 1 FROM property_definitions WHERE name IN ('plugin_prop', 'long_event_prop')");
    assert.equal(rowCount, 0);
  });

  test('one row per name and property even when a batch repeats them; the first type seen wins, a typed value fills a null', async () => {
    const seen = new DefinitionsSeen({ now: clock().fn });
    await record(
      [event('repeated', { v: null, w: 1 }), event('repeated', { v: 'text', w: 'text' }), event('repeated', { v: 3 })],
      seen,
    );
    const { rows } = await t.db.pool.query("SELECT name, property_type FROM property_definitions WHERE name IN ('v', 'w') ORDER BY name");
    assert.deepEqual(rows, [
      { name: 'v', property_type: 'String' },
      { name: 'w', property_type: 'Numeric' },
    ]);
  });

  test('last_seen_at is floored to the hour and only moves forward; created_at stays', async () => {
    const c = clock();
    const seen = new DefinitionsSeen({ now: c.fn });
    await record([event('hourly')], seen);
    c.now = T0 + 2 * HOUR;
    await record([event('hourly')], seen);
    let row = await definition('hourly');
    assert.equal(row.created_at.toISOString(), '2030-05-06T10:00:00.000Z');
    assert.equal(row.last_seen_at.toISOString(), '2030-05-06T12:00:00.000Z');

    // Another process whose clock is behind never moves it back.
    const late = new DefinitionsSeen({ now: () => T0 - 5 * HOUR });
    await record([event('hourly')], late);
    row = await definition('hourly');
    assert.equal(row.last_seen_at.toISOString(), '2030-05-06T12:00:00.000Z');
    assert.equal(row.created_at.toISOString(), '2030-05-06T10:00:00.000Z');
  });

  test('a definition made through the API gets created_at and last_seen_at on its first event', async () => {
    const id = await createDefinition(t, { name: 'declared first', description: 'kept' });
    const before = await definition('declared first');
    assert.equal(before.created_at, null);
    assert.equal(before.last_seen_at, null);
    await record([event('declared first')], new DefinitionsSeen({ now: clock().fn }));
    const row = await definition('declared first');
    assert.equal(row.id, id);
    assert.equal(row.created_at.toISOString(), '2030-05-06T10:00:00.000Z');
    assert.equal(row.last_seen_at.toISOString(), '2030-05-06T10:00:00.000Z');
    assert.equal(row.description, 'kept');

    // A row with a last_seen_at but no created_at gets created_at too, last_seen_at untouched.
    await t.db.pool.query(
      `INSERT INTO event_definitions (project_id, name, last_seen_at) VALUES ($1, 'half known', '2030-05-06T10:00:00Z')`,
      [t.projectId],
    );
    await record([event('half known')], new DefinitionsSeen({ now: clock().fn }));
    const half = await definition('half known');
    assert.equal(half.created_at.toISOString(), '2030-05-06T10:00:00.000Z');
    assert.equal(half.last_seen_at.toISOString(), '2030-05-06T10:00:00.000Z');
  });

  test('a property keeps its type: later values of another type, and types set through the API, stay', async () => {
    const c = clock();
    const seen = new DefinitionsSeen({ now: c.fn });
    await record([event('typed', { amount: 5, label: 'x' })], seen);
    c.now += HOUR;
    await record([event('typed', { amount: 'five', label: 7 })], seen);
    const { rows } = await t.db.pool.query(
      "SELECT id, name, property_type, is_numerical FROM property_definitions WHERE type = 1 AND name IN ('amount', 'label') ORDER BY name",
    );
    assert.deepEqual(rows.map(({ id: _id, ...r }) => r), [
      { name: 'amount', property_type: 'Numeric', is_numerical: true },
      { name: 'label', property_type: 'String', is_numerical: false },
    ]);
    const set = await t.request({ method: 'PATCH', url: `${propertiesUrl(t.projectId)}${rows[1].id}/`, payload: { property_type: 'DateTime' } });
    assert.equal(set.statusCode, 200, set.body);
    c.now += HOUR;
    await record([event('typed', { label: 'plain text' })], seen);
    const label = await t.db.pool.query("SELECT property_type FROM property_definitions WHERE type = 1 AND name = 'label'");
    assert.equal(label.rows[0].property_type, 'DateTime');
  });

  test('an untyped property gains a type from a later value within the same hour', async () => {
    const seen = new DefinitionsSeen({ now: clock().fn });
    await record([event('late type', { maybe: null })], seen);
    await record([event('late type', { maybe: null })], seen); // settles the first batch
    assert.equal(await record([event('late type', { maybe: null })], seen), 0);
    await record([event('late type', { maybe: true })], seen);
    const { rows } = await t.db.pool.query("SELECT property_type FROM property_definitions WHERE type = 1 AND name = 'maybe'");
    assert.equal(rows[0].property_type, 'Boolean');
  });

  test('$groupidentify records group properties of a known group type only, and no event properties', async () => {
    await t.db.pool.query(
      "INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES ($1, 'company', 1)",
      [t.projectId],
    );
    const seen = new DefinitionsSeen({ now: clock().fn });
    await record(
      [
        event('$groupidentify', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', employees: 50, founded: '1999-01-01' } }),
        event('$groupidentify', { $group_type: 'team', $group_key: 't1', $group_set: { headcount: 3 } }),
      ],
      seen,
    );
    assert.deepEqual(await properties(3), { '1:name': 'String', '1:employees': 'Numeric', '1:founded': 'DateTime' });
    assert.deepEqual(await pairs('$groupidentify'), []);
    const { rowCount } = await t.db.pool.query(
      "SELECT 1 FROM property_definitions WHERE type = 1 AND name IN ('$group_type', '$group_key', '$group_set', 'headcount')",
    );
    assert.equal(rowCount, 0);
    assert.ok(await definition('$groupidentify'));

    // Once the type is known, its properties are recorded.
    await t.db.pool.query("INSERT INTO group_type_mappings (project_id, group_type, group_type_index) VALUES ($1, 'team', 2)", [t.projectId]);
    await record([event('$groupidentify', { $group_type: 'team', $group_key: 't1', $group_set: { headcount: 3 } })], seen);
    assert.equal((await properties(3))['2:headcount'], 'Numeric');
  });

  test('a batch recorded this hour is skipped: one statement per table, then a check, then nothing', async () => {
    const c = clock();
    const seen = new DefinitionsSeen({ now: c.fn });
    const batch = () => [event('cached', { a: 1, b: 'x', $set: { email: 'a@b.c' } }), event('cached', { a: 2 })];
    assert.equal(await record(batch(), seen), 3, 'event_definitions, property_definitions, event_properties');
    assert.equal(await record(batch(), seen), 1, 'confirms the first batch committed');
    assert.equal(await record(batch(), seen), 0);
    assert.equal(await record(batch(), seen), 0);

    // Proof by deletion: the row is not written again within the hour, and is in the next.
    await t.db.pool.query("DELETE FROM event_definitions WHERE name = 'cached'");
    await t.db.pool.query("DELETE FROM property_definitions WHERE name = 'a'");
    assert.equal(await record(batch(), seen), 0);
    assert.equal(await definition('cached'), undefined);
    c.now += HOUR;
    await record(batch(), seen);
    const row = await definition('cached');
    assert.equal(row.last_seen_at.toISOString(), '2030-05-06T11:00:00.000Z');
    assert.ok((await properties(1)).a);

    // Something new in a known batch writes only what is new.
    await record(batch(), seen);
    assert.equal(await record([...batch(), event('cached', { c: true })], seen), 2, 'property_definitions and event_properties');
  });

  test('a rolled-back batch is written again by the next one', async () => {
    const seen = new DefinitionsSeen({ now: clock().fn });
    await record([event('rolled back', { r: 1 })], seen, { rollback: true });
    assert.equal(await definition('rolled back'), undefined);
    assert.equal(await record([event('rolled back', { r: 1 })], seen), 4, 'the check, then the three writes');
    assert.ok(await definition('rolled back'));
    assert.deepEqual(await pairs('rolled back'), ['r']);
  });

  test('the cache is per project and bounded', async () => {
    const other = await secondProject(t);
    const seen = new DefinitionsSeen({ now: clock().fn, maxEntries: 3 });
    await record([event('shared name', { p: 1 })], seen);
    await record([event('shared name', { p: 1 })], seen, { projectId: other });
    assert.ok(await definition('shared name', other));
    assert.deepEqual(await pairs('shared name', other), ['p']);
    assert.ok(seen.size <= 3);

    // With room for three entries, a batch of six cannot be remembered whole: it is written again.
    await record([event('wide', { a: 1, b: 1 })], seen);
    await record([event('wide', { a: 1, b: 1 })], seen);
    assert.ok(seen.size <= 3);
    assert.ok((await record([event('wide', { a: 1, b: 1 })], seen)) > 0);
  });
});
