import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { retryDelay, UnitsOfWork, type UnitOfWork } from '../../src/db/unit-of-work.ts';
import { isDatabaseUnavailable, isRetryableConflict } from '../../src/db/unavailable.ts';
import { CHANGES_CHANNEL, ChangeBus, type Change } from '../../src/kernel/changes/bus.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { noticesHeard } from '../helpers/notices.ts';

let db: TestDatabase;
let listener: pg.Client;
const notices: Change[] = [];

before(async () => {
  db = await createTestDatabase();
  await db.pool.query('CREATE TABLE uow_rows (id int PRIMARY KEY, value int NOT NULL)');
  await db.pool.query('INSERT INTO uow_rows VALUES (1, 0), (2, 0)');
  listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  listener.on('notification', (message) => notices.push((JSON.parse(message.payload ?? '{}') as { change: Change }).change));
  await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
});

after(async () => {
  await listener.end();
  await db.drop();
});

/** Lets notices in flight arrive: a NOTIFY sent after them comes back after them. */
async function settleNotices(): Promise<void> {
  const marker = `marker-${Math.random()}`;
  await db.pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, JSON.stringify({ origin: marker, change: { kind: 'auth' } })]);
  const deadline = Date.now() + 3000;
  const seen = () => notices.length > 0 && notices.at(-1)?.kind === 'auth';
  while (!seen() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  notices.pop();
}

async function valueOf(id: number): Promise<number> {
  const { rows } = await db.pool.query<{ value: number }>('SELECT value FROM uow_rows WHERE id = $1', [id]);
  return rows[0].value;
}

describe('a unit of work', () => {
  test('a thrown error rolls back: nothing delivered, no NOTIFY sent, nothing stored', async () => {
    notices.length = 0;
    const bus = new ChangeBus(null);
    const heard: Change[] = [];
    bus.subscribe((change) => heard.push(change));
    const effects: string[] = [];
    const units = new UnitsOfWork(db.pool);
    await assert.rejects(
      units.run(async (unit) => {
        await unit.client.query('UPDATE uow_rows SET value = 99 WHERE id = 1');
        unit.afterCommit(() => effects.push('cache'));
        await bus.publish(unit, { kind: 'flag', projectId: 1, id: 7 });
        throw new Error('refused');
      }),
      /refused/,
    );
    await settleNotices();
    assert.deepEqual(effects, []);
    assert.deepEqual(heard, []);
    assert.deepEqual(notices, []);
    assert.equal(await valueOf(1), 0);
  });

  test('a commit delivers every effect once, in order, after COMMIT; other processes hear the notice', async () => {
    notices.length = 0;
    const bus = new ChangeBus(db.url);
    await bus.start();
    try {
      const order: string[] = [];
      // (settleNotices' own marker is an `auth` notice from "another process".)
      bus.subscribe((change) => change.kind !== 'auth' && order.push(`heard ${change.kind}`));
      const units = new UnitsOfWork(db.pool);
      const result = await units.run(async (unit) => {
        await unit.client.query('UPDATE uow_rows SET value = 1 WHERE id = 1');
        unit.afterCommit(() => order.push('first'));
        await bus.publish(unit, { kind: 'cohort', projectId: 1, id: 3 });
        unit.afterCommit(() => order.push('last'));
        // Nothing runs before the commit.
        assert.deepEqual(order, []);
        return 'written';
      });
      assert.equal(result, 'written');
      assert.deepEqual(order, ['first', 'heard cohort', 'last']);
      await settleNotices();
      assert.deepEqual(notices, [{ kind: 'cohort', projectId: 1, id: 3 }]);
      // The process's own notice, coming back over LISTEN, is not heard a second time: by the time
      // the bus hears a notice sent after it, it has had it and let it go.
      await noticesHeard(bus, db.pool);
      assert.deepEqual(order, ['first', 'heard cohort', 'last']);
    } finally {
      await bus.close();
    }
  });

  test('an effect that throws after commit is logged; the write stands and the other effects run', async () => {
    const logged: unknown[] = [];
    const units = new UnitsOfWork(db.pool, (error) => logged.push(error));
    const ran: string[] = [];
    const result = await units.run(async (unit) => {
      await unit.client.query('UPDATE uow_rows SET value = 1005 WHERE id = 2');
      unit.afterCommit(() => {
        throw new Error('cache broke');
      });
      unit.afterCommit(() => ran.push('after'));
      return 'ok';
    });
    assert.equal(result, 'ok');
    assert.deepEqual(ran, ['after']);
    assert.equal(logged.length, 1);
    assert.match((logged[0] as Error).message, /cache broke/);
    assert.equal(await valueOf(2), 1005);
  });

  test('a subscriber that throws does not keep the change from the others', async () => {
    const messages: string[] = [];
    const bus = new ChangeBus(null, { log: (message) => messages.push(message) });
    const heard: string[] = [];
    bus.subscribe(() => {
      throw new Error('subscriber broke');
    });
    bus.subscribe((change) => heard.push(change.kind));
    await new UnitsOfWork(db.pool).run((unit) => bus.publish(unit, { kind: 'auth' }));
    assert.deepEqual(heard, ['auth']);
    assert.equal(messages.length, 1);
    assert.match(messages[0], /subscriber broke/);
  });
});

/**
 * Two units that update rows 1 and 2 in opposite orders, each waiting (first attempt only) until
 * the other holds its first row: PostgreSQL finds the deadlock and aborts one of them.
 */
async function deadlockingPair(units: UnitsOfWork, retry: boolean) {
  let holding = 0;
  let release!: () => void;
  const bothHolding = new Promise<void>((resolve) => (release = resolve));
  const attempts = { a: 0, b: 0 };
  const effects: string[] = [];
  const work = (name: 'a' | 'b', first: number, second: number) => async (unit: UnitOfWork) => {
    attempts[name]++;
    await unit.client.query('UPDATE uow_rows SET value = value + 1 WHERE id = $1', [first]);
    if (attempts[name] === 1) {
      if (++holding === 2) release();
      await bothHolding;
    }
    await unit.client.query('UPDATE uow_rows SET value = value + 1 WHERE id = $1', [second]);
    unit.afterCommit(() => effects.push(name));
    return name;
  };
  const results = await Promise.allSettled([units.run(work('a', 1, 2), { retry }), units.run(work('b', 2, 1), { retry })]);
  return { results, attempts, effects };
}

describe('a write joining a unit already open (within)', () => {
  test('its statements are in the outer transaction and its effects wait for the outer commit, or are dropped with it', async () => {
    const units = new UnitsOfWork(db.pool);
    const effects: string[] = [];
    const start = await valueOf(2);
    await units.run(async (outer) => {
      await units.run(async (inner) => {
        assert.equal(inner, outer);
        await inner.client.query('UPDATE uow_rows SET value = 1005 WHERE id = 2');
        inner.afterCommit(() => effects.push('inner'));
      }, { within: outer, retry: true });
      assert.deepEqual(effects, [], 'not before the outer unit commits');
      assert.equal(await valueOf(2), start, 'not visible outside the outer transaction yet');
    });
    assert.deepEqual(effects, ['inner']);
    assert.equal(await valueOf(2), 1005);

    await assert.rejects(
      units.run(async (outer) => {
        await units.run(async (inner) => {
          await inner.client.query('UPDATE uow_rows SET value = 1006 WHERE id = 2');
          inner.afterCommit(() => effects.push('dropped'));
        }, { within: outer });
        throw new Error('outer refused');
      }),
      /outer refused/,
    );
    assert.deepEqual(effects, ['inner']);
    assert.equal(await valueOf(2), 1005);
    await db.pool.query('UPDATE uow_rows SET value = $1 WHERE id = 2', [start]);
  });
});

describe('work before commit', () => {
  test('runs once per key, last inside the transaction (also for a joined unit), and not at all when the unit throws', async () => {
    const units = new UnitsOfWork(db.pool);
    const order: string[] = [];
    const start = await valueOf(2);
    await units.run(async (outer) => {
      outer.beforeCommit('bump', async (client) => {
        order.push('bump');
        await client.query('UPDATE uow_rows SET value = value + 1 WHERE id = 2');
      });
      await units.run(async (inner) => {
        inner.beforeCommit('bump', async () => {
          order.push('second bump');
        });
        order.push('inner work');
      }, { within: outer });
      outer.afterCommit(() => order.push('after commit'));
      order.push('outer work');
    });
    assert.deepEqual(order, ['inner work', 'outer work', 'bump', 'after commit']);
    assert.equal(await valueOf(2), start + 1);

    await assert.rejects(
      units.run(async (unit) => {
        unit.beforeCommit('bump', async (client) => {
          order.push('never');
          await client.query('UPDATE uow_rows SET value = value + 1 WHERE id = 2');
        });
        throw new Error('refused');
      }),
      /refused/,
    );
    assert.equal(order.includes('never'), false);
    assert.equal(await valueOf(2), start + 1);
  });
});

describe('conflicts between units of work', () => {
  test('a real deadlock: a retryable unit runs again and both writes land, effects once each', async () => {
    await db.pool.query('UPDATE uow_rows SET value = 0');
    const { results, attempts, effects } = await deadlockingPair(new UnitsOfWork(db.pool), true);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled'],
    );
    assert.equal(attempts.a + attempts.b, 3, JSON.stringify(attempts));
    assert.deepEqual([...effects].sort(), ['a', 'b']);
    // Each unit added 1 to both rows exactly once: the aborted attempt left nothing.
    assert.equal(await valueOf(1), 2);
    assert.equal(await valueOf(2), 2);
  });

  test('a real deadlock in a unit not safe to retry: it fails as "not now" (503), its effects dropped', async () => {
    await db.pool.query('UPDATE uow_rows SET value = 0');
    const { results, attempts, effects } = await deadlockingPair(new UnitsOfWork(db.pool), false);
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(failed.length, 1);
    assert.equal((failed[0].reason as { code?: string }).code, '40P01');
    assert.ok(isRetryableConflict(failed[0].reason));
    assert.ok(isDatabaseUnavailable(failed[0].reason));
    assert.equal(attempts.a + attempts.b, 2);
    assert.equal(effects.length, 1);
    assert.equal(await valueOf(1), 1);
    assert.equal(await valueOf(2), 1);
  });

  test('serialization failures are retried the same way; other errors are not', async () => {
    const units = new UnitsOfWork(db.pool);
    let runs = 0;
    const result = await units.run(
      async () => {
        runs++;
        if (runs < 3) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        return runs;
      },
      { retry: true },
    );
    assert.equal(result, 3);

    runs = 0;
    await assert.rejects(
      units.run(
        async () => {
          runs++;
          throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        },
        { retry: true },
      ),
      /serialize/,
    );
    assert.equal(runs, 3, 'bounded: three attempts at most');

    runs = 0;
    await assert.rejects(
      units.run(
        async () => {
          runs++;
          throw Object.assign(new Error('duplicate key'), { code: '23505' });
        },
        { retry: true },
      ),
    );
    assert.equal(runs, 1);
    assert.equal(isRetryableConflict({ code: '23505' }), false);
  });

  test('the wait between attempts is short and jittered', () => {
    assert.equal(retryDelay(2, () => 0), 5);
    assert.equal(retryDelay(2, () => 1), 15);
    assert.equal(retryDelay(3, () => 0.5), 20);
  });
});
