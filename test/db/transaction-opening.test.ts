import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import pg from 'pg';
import { UnitsOfWork } from '../../src/db/unit-of-work.ts';
import { withReadSnapshot } from '../../src/db/read-snapshot.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let db: TestDatabase;
/** The texts the pool's connections send, in order (each one round trip). */
const sent: string[] = [];
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;

before(async () => {
  db = await createTestDatabase();
  await db.pool.query('CREATE TABLE opening_rows (id int PRIMARY KEY, value int NOT NULL)');
  pg.Client.prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    sent.push(typeof first === 'string' ? first : ((first as { text?: string } | null)?.text ?? '?'));
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
});

after(async () => {
  pg.Client.prototype.query = query as typeof pg.Client.prototype.query;
  await db.drop();
});

beforeEach(async () => {
  await db.pool.query('DELETE FROM opening_rows');
  sent.length = 0;
});

describe('a transaction opens with its first statement', () => {
  test('plain text without parameters: BEGIN travels in the same message, the caller gets its own results', async () => {
    const units = new UnitsOfWork(db.pool);
    const answer = await units.run(async (unit) => {
      const one = (await unit.client.query('INSERT INTO opening_rows VALUES (1, 10) RETURNING value')) as pg.QueryResult<{ value: number }>;
      return one.rows[0].value;
    });
    assert.equal(answer, 10);
    assert.deepEqual(sent, ['BEGIN; INSERT INTO opening_rows VALUES (1, 10) RETURNING value', 'COMMIT']);
    assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM opening_rows')).rows[0].n, 1);
  });

  test('a first text of two statements answers both results, as it would alone', async () => {
    const units = new UnitsOfWork(db.pool);
    const results = await units.run(async (unit) => (await unit.client.query('SELECT 1 AS a; SELECT 2 AS b')) as unknown as pg.QueryResult[]);
    assert.deepEqual(results.map((result) => result.rows), [[{ a: 1 }], [{ b: 2 }]]);
    assert.equal(sent.length, 2);
  });

  test('a parameterised first statement: BEGIN goes just before it', async () => {
    const units = new UnitsOfWork(db.pool);
    await units.run(async (unit) => {
      await unit.client.query('INSERT INTO opening_rows VALUES ($1, $2)', [2, 20]);
    });
    assert.deepEqual(sent, ['BEGIN', 'INSERT INTO opening_rows VALUES ($1, $2)', 'COMMIT']);
  });

  test('the combined first message is still one transaction: a failure after it rolls everything back', async () => {
    const units = new UnitsOfWork(db.pool);
    await assert.rejects(
      units.run(async (unit) => {
        await unit.client.query('INSERT INTO opening_rows VALUES (3, 30)');
        await unit.client.query('INSERT INTO opening_rows VALUES (3, 31)');
      }),
      /duplicate key/,
    );
    assert.equal(sent.at(-1), 'ROLLBACK');
    assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM opening_rows')).rows[0].n, 0);
  });

  test('a failing first statement leaves nothing open on the connection', async () => {
    const units = new UnitsOfWork(db.pool, () => {}, undefined);
    await assert.rejects(units.run(async (unit) => void (await unit.client.query('SELECT no_such_column FROM opening_rows'))), /no_such_column/);
    for (let i = 0; i < 3; i += 1) {
      const { rows } = await db.pool.query<{ open: boolean }>("SELECT now() <> statement_timestamp() AS open");
      assert.equal(rows[0].open, false);
    }
  });

  test('work that sends nothing sends no BEGIN and no COMMIT', async () => {
    const units = new UnitsOfWork(db.pool);
    assert.equal(await units.run(async () => 'nothing'), 'nothing');
    assert.deepEqual(sent, []);
  });

  test('a read snapshot (an opening of several statements) still opens before the first read', async () => {
    const seen = await withReadSnapshot(db.pool, async (snapshot) => {
      const { rows } = await snapshot.query<{ transaction_isolation: string }>('SHOW transaction_isolation');
      return rows[0].transaction_isolation;
    }, ['jit = off']);
    assert.equal(seen, 'repeatable read');
    assert.deepEqual(sent, ['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off', 'SHOW transaction_isolation', 'COMMIT']);
  });
});
