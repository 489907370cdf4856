import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { PostHog as PostHog5293 } from 'posthog-node-5293';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The real SDK against the real server: what posthog-node sends to /batch/ (gzip by default,
// sent_at, uuids it generates) must be stored as it meant it.

let t: TestApp;
let token: string;
let host: string;

before(async () => {
  t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  host = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());
beforeEach(async () => {
  await t.db.pool.query('DELETE FROM events');
});

interface Row {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: Date;
}

async function rows(): Promise<Row[]> {
  const result = await t.db.pool.query<Row>(
    'SELECT uuid::text AS uuid, event, distinct_id, properties, timestamp FROM events WHERE project_id = $1 ORDER BY timestamp, event',
    [t.projectId],
  );
  return result.rows;
}

describe('posthog-node against /batch/', () => {
  for (const [label, options] of [
    ['gzip (the default), flushAt 20', { flushAt: 20 }],
    ['uncompressed, flushAt 1', { flushAt: 1, disableCompression: true }],
  ] as const) {
    test(`current posthog-node, ${label}: every captured event is stored`, async () => {
      const client = new PostHog(token, { host, flushInterval: 50, ...options });
      const errors: unknown[] = [];
      client.on('error', (error) => errors.push(error));
      const before = Date.now();
      for (let i = 0; i < 45; i++) {
        client.capture({ distinctId: `user-${i % 3}`, event: 'page viewed', properties: { i, path: `/p/${i}` } });
      }
      client.identify({ distinctId: 'user-0', properties: { email: 'zero@example.com' } });
      client.capture({ distinctId: 'user-1', event: 'signed up', properties: { $set: { plan: 'pro' } } });
      await client.shutdown();
      assert.deepEqual(errors, []);

      const stored = await rows();
      assert.equal(stored.length, 47);
      const views = stored.filter((r) => r.event === 'page viewed');
      assert.deepEqual(views.map((r) => r.properties.i).sort((a, b) => Number(a) - Number(b)), Array.from({ length: 45 }, (_, i) => i));
      for (const row of stored) {
        assert.equal(row.properties.$lib, 'posthog-node');
        assert.equal(typeof row.properties.$lib_version, 'string');
        assert.ok(!('token' in row.properties));
        assert.ok(Math.abs(row.timestamp.getTime() - before) < 10_000, row.timestamp.toISOString());
      }
      const identify = stored.find((r) => r.event === '$identify');
      assert.ok(identify);
      assert.equal(identify.distinct_id, 'user-0');
      assert.deepEqual(identify.properties.$set, { email: 'zero@example.com' });
      assert.deepEqual(stored.find((r) => r.event === 'signed up')?.properties.$set, { plan: 'pro' });
      // The client's own uuids are kept (its retries are then idempotent).
      assert.equal(new Set(stored.map((r) => r.uuid)).size, 47);
    });
  }

  test('what posthog-node captures updates persons, groups and definitions', async () => {
    const client = new PostHog(token, { host, flushAt: 10, flushInterval: 50 });
    client.capture({ distinctId: 'anon-42', event: 'viewed pricing', properties: { plan_count: 3, annual: true } });
    client.identify({ distinctId: 'ada@example.com', properties: { email: 'ada@example.com', age: 36 } });
    client.alias({ distinctId: 'ada@example.com', alias: 'anon-42' });
    client.capture({ distinctId: 'ada@example.com', event: 'purchase', properties: { amount: 12.5, at: '2026-01-02T03:04:05Z' } });
    client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { seats: 40 } });
    await client.shutdown();

    const persons = await t.db.pool.query<{ properties: Record<string, unknown>; is_identified: boolean; ids: string[] }>(
      `SELECT p.properties, p.is_identified, array_agg(d.distinct_id ORDER BY d.distinct_id) AS ids
         FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id
        WHERE p.project_id = $1 AND p.id IN (SELECT person_id FROM person_distinct_ids WHERE distinct_id = 'ada@example.com')
        GROUP BY p.id`,
      [t.projectId],
    );
    assert.equal(persons.rows.length, 1);
    assert.deepEqual(persons.rows[0].ids, ['ada@example.com', 'anon-42']);
    assert.equal(persons.rows[0].is_identified, true);
    assert.equal(persons.rows[0].properties.email, 'ada@example.com');
    assert.equal(persons.rows[0].properties.age, 36);

    const groups = await t.db.pool.query(
      `SELECT g.group_properties FROM groups g JOIN group_type_mappings m
          ON m.project_id = g.project_id AND m.group_type_index = g.group_type_index
        WHERE g.project_id = $1 AND m.group_type = 'company' AND g.group_key = 'acme'`,
      [t.projectId],
    );
    assert.deepEqual(groups.rows[0]?.group_properties, { seats: 40 });

    const definitions = await t.db.pool.query<{ name: string; last_seen_at: Date | null }>(
      'SELECT name, last_seen_at FROM event_definitions WHERE project_id = $1 ORDER BY name',
      [t.projectId],
    );
    const names = definitions.rows.map((r) => r.name);
    for (const name of ['$create_alias', '$groupidentify', '$identify', 'purchase', 'viewed pricing']) assert.ok(names.includes(name), name);
    assert.ok(definitions.rows.every((r) => r.last_seen_at !== null));

    const types = await t.db.pool.query<{ name: string; type: number; property_type: string | null }>(
      'SELECT name, type, property_type FROM property_definitions WHERE project_id = $1',
      [t.projectId],
    );
    const typeOf = (name: string, kind: number) => types.rows.find((r) => r.name === name && r.type === kind)?.property_type;
    assert.equal(typeOf('amount', 1), 'Numeric');
    assert.equal(typeOf('annual', 1), 'Boolean');
    assert.equal(typeOf('at', 1), 'DateTime');
    assert.equal(typeOf('email', 2), 'String');
    assert.equal(typeOf('age', 2), 'Numeric');
    assert.equal(typeOf('seats', 3), 'Numeric');
  });

  test('posthog-node 5.29.3 (pinned old) is stored too', async () => {
    const client = new PostHog5293(token, { host, flushAt: 5, flushInterval: 50 });
    for (let i = 0; i < 12; i++) client.capture({ distinctId: 'old-client', event: 'old event', properties: { i } });
    await client.shutdown();
    const stored = await rows();
    assert.equal(stored.length, 12);
    assert.ok(stored.every((r) => r.properties.$lib === 'posthog-node' && r.distinct_id === 'old-client'));
  });

  test('a wrong token: the client gets a 401 and nothing is stored', async () => {
    const client = new PostHog('phc_wrong', { host, flushAt: 1, flushInterval: 50, fetchRetryCount: 0 });
    const errors: unknown[] = [];
    client.on('error', (error) => errors.push(error));
    client.capture({ distinctId: 'x', event: 'lost' });
    // The client reports the failed flush on the console too; keep the test output clean.
    const consoleError = console.error;
    console.error = () => {};
    try {
      await client.shutdown();
    } finally {
      console.error = consoleError;
    }
    assert.ok(errors.length >= 1);
    assert.equal((await rows()).length, 0);
  });
});
