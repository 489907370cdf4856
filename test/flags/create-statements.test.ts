import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// What one create sends to PostgreSQL (bench/statements.ts lists it): the flag written with its
// change count by the insert itself, never updated afterwards to be stamped.
let t: TestApp;
const sent: string[] = [];
let recording = false;
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
const flagsUrl = () => `/api/projects/${t.projectId}/feature_flags/`;
const create = (key: string) => t.request({ method: 'POST', url: flagsUrl(), payload: { key, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } } });

before(async () => {
  t = await startTestApp();
  pg.Client.prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    if (recording && text !== undefined) sent.push(text.replace(/\s+/g, ' ').trim());
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
});
after(async () => {
  pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  await t.close();
});

async function counter(): Promise<number> {
  const { rows } = await t.db.pool.query<{ counter: number }>('SELECT counter FROM flag_change_counters WHERE project_id = $1', [t.projectId]);
  return rows[0]?.counter ?? 0;
}

describe('one flag create', () => {
  test('four round trips: BEGIN with the lock and count, the insert with its bump, the entry and notices, COMMIT', async () => {
    assert.equal((await create('statements-warm-up')).statusCode, 201);
    sent.length = 0;
    recording = true;
    const response = await create('statements-counted');
    recording = false;
    assert.equal(response.statusCode, 201);
    assert.equal(sent.length, 4, sent.join('\n'));
    assert.match(sent[0], /^BEGIN; SELECT pg_advisory_xact_lock\(727020, \d+\); SELECT live AS n FROM flag_live_counts/);
    assert.match(sent[1], /^WITH bump AS \( INSERT INTO flag_change_counters/);
    assert.match(sent[2], /^WITH w0 AS \(INSERT INTO activity_log/);
    assert.equal(sent[3], 'COMMIT');
    assert.ok(!sent.some((text) => /UPDATE feature_flags/.test(text)), 'the new row is not updated to be stamped');
  });

  test("the flag is stored with the count its create committed at, the project's counter moving once per create", async () => {
    const start = await counter();
    const a = (await create('stamped-a')).json() as { id: number };
    const b = (await create('stamped-b')).json() as { id: number };
    assert.equal(await counter(), start + 2);
    const { rows } = await t.db.pool.query<{ id: number; change_seq: number }>('SELECT id, change_seq FROM feature_flags WHERE id = ANY($1::int[]) ORDER BY id', [[a.id, b.id]]);
    assert.deepEqual(rows, [{ id: a.id, change_seq: start + 1 }, { id: b.id, change_seq: start + 2 }]);
    // Readers that fetch "written since" a count find exactly the flags written after it.
    const since = await t.db.pool.query<{ id: number }>('SELECT id FROM feature_flags WHERE project_id = $1 AND change_seq > $2', [t.projectId, start + 1]);
    assert.deepEqual(since.rows.map((row) => row.id), [b.id]);
    const entries = await t.db.pool.query<{ item_id: string }>("SELECT item_id FROM activity_log WHERE scope = 'FeatureFlag' AND activity = 'created' AND item_id = ANY($1::text[])", [[String(a.id), String(b.id)]]);
    assert.equal(entries.rowCount, 2);
  });

  test('a taken key rolls the bump back with the insert', async () => {
    assert.equal((await create('stamped-taken')).statusCode, 201);
    const start = await counter();
    const refused = await create('stamped-taken');
    assert.equal(refused.statusCode, 400);
    assert.equal(await counter(), start);
  });
});
