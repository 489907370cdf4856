import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import type { PoolClient } from '../../src/db/pool.ts';
import { resolvePersons } from '../../src/events/persons/resolve.ts';
import { MAX_DISTINCT_ID_LOCKS } from '../../src/events/persons/store.ts';
import type { IncomingEvent } from '../../src/events/types.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { event, fresh, groupTypes, newProject, personCount, personExists, personOf, resolve } from './persons-support.ts';
import { eventually } from '../helpers/eventually.ts';
import { handOpened } from '../helpers/database.ts';

/**
 * Batches resolved in parallel transactions, each on its own connection, as the ingestion
 * pipeline runs them. Where an ordering matters, the test waits until PostgreSQL reports the
 * second transaction as blocked on a lock before letting the first commit.
 */

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Tx {
  pid: number;
  resolve(events: IncomingEvent[], projectId?: number): Promise<Map<string, string>>;
  commit(): Promise<void>;
  /** Rolls back and releases the connection unless already committed (for cleanup after a failure). */
  close(): Promise<void>;
}

const open = new Set<Tx>();

async function openTx(): Promise<Tx> {
  const client: PoolClient = await t.db.pool.connect();
  await client.query('BEGIN');
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  let finished = false;
  const finish = async (sql: string) => {
    if (finished) return;
    finished = true;
    open.delete(tx);
    try {
      await client.query(sql);
    } finally {
      client.release();
    }
  };
  const tx: Tx = {
    pid: rows[0].pid,
    resolve: (events, projectId = t.projectId) => resolvePersons(handOpened(client), projectId, events),
    commit: () => finish('COMMIT'),
    // A statement still waiting for a lock is cancelled first, so the rollback can run.
    close: async () => {
      if (finished) return;
      await t.db.pool.query('SELECT pg_cancel_backend($1)', [rows[0].pid]);
      await finish('ROLLBACK').catch(() => {});
    },
  };
  open.add(tx);
  return tx;
}

afterEach(async () => {
  await Promise.all([...open].map((tx) => tx.close()));
});

/** Resolves once PostgreSQL shows backend `pid` waiting for a lock (fails after 5 s). */
async function blockedOnLock(pid: number): Promise<void> {
  await eventually(
    `backend ${pid} waiting for a lock`,
    async () => (await t.db.pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [pid])).rows.length > 0,
    undefined,
    { intervalMs: 10 },
  );
}

async function distinctIdRows(distinctId: string): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM person_distinct_ids WHERE project_id = $1 AND distinct_id = $2',
    [t.projectId, distinctId],
  );
  return rows[0].n;
}

test('two transactions meeting the same new distinct id: the second waits, then finds the first one`s person', async () => {
  const d = fresh('same');
  const before = await personCount(t);
  const one = await openTx();
  const two = await openTx();
  {
    const first = await one.resolve([event('$pageview', d, { $set: { by_one: 1 } })]);
    const second = two.resolve([event('$pageview', d, { $set: { by_two: 2 } })]);
    await blockedOnLock(two.pid);
    await one.commit();
    const secondMap = await second;
    await two.commit();
    assert.equal(secondMap.get(d), first.get(d));
  }
  assert.equal(await personCount(t), before + 1);
  assert.equal(await distinctIdRows(d), 1);
  assert.deepEqual((await personOf(t, d))!.properties, { by_one: 1, by_two: 2 });
});

test('many batches sharing new distinct ids, in different orders, all at once: one person per id, no error', async () => {
  const ids = Array.from({ length: 40 }, (_, i) => fresh(`shared${i}`));
  const before = await personCount(t);
  const batches = Array.from({ length: 6 }, (_, b) => {
    const order = [...ids].sort(() => Math.random() - 0.5).slice(0, 30);
    return order.map((d) => event('$pageview', d, { $set: { [`batch_${b}`]: true } }));
  });
  const txs = await Promise.all(batches.map(() => openTx()));
  const maps = await Promise.all(
    txs.map(async (tx, i) => {
      const map = await tx.resolve(batches[i]);
      await tx.commit();
      return map;
    }),
  );
  assert.equal(await personCount(t), before + new Set(batches.flat().map((e) => e.distinctId)).size);
  for (const d of new Set(batches.flat().map((e) => e.distinctId))) {
    const person = (await personOf(t, d))!;
    for (const map of maps) if (map.has(d)) assert.equal(map.get(d), person.uuid);
    // No lost update: every batch that named the id left its key.
    const expected = batches.flatMap((batch, b) => (batch.some((e) => e.distinctId === d) ? [`batch_${b}`] : []));
    assert.deepEqual(Object.keys(person.properties).sort(), expected.sort());
  }
});

test('batches reaching the same persons through different distinct ids serialise on the person rows (no lost update, no deadlock)', async () => {
  // Persons with two ids each; batch i names every person by id (i % 2), so the batches share no
  // distinct id (no common advisory lock) and only the person row locks keep them apart. The ids
  // sort in opposite person orders (a: 0…n, b: n…0), so locking rows in distinct-id order would
  // deadlock: rows must be locked in one order whatever the ids.
  const n = 12;
  const tag = fresh('');
  const pad = (k: number) => String(k).padStart(3, '0');
  const persons = Array.from({ length: n }, (_, k) => [`rows-a-${pad(k)}${tag}`, `rows-b-${pad(n - k)}${tag}`]);
  await resolve(
    t,
    persons.flatMap(([a, b]) => [event('$pageview', a), event('$create_alias', a, { alias: b })]),
  );
  const batches = Array.from({ length: 6 }, (_, i) =>
    [...persons].sort(() => Math.random() - 0.5).map((pair) => event('$pageview', pair[i % 2], { $set: { [`tx_${i}`]: i } })),
  );
  const txs = await Promise.all(batches.map(() => openTx()));
  await Promise.all(
    txs.map(async (tx, i) => {
      await tx.resolve(batches[i]);
      await tx.commit();
    }),
  );
  for (const [a] of persons) {
    const person = (await personOf(t, a))!;
    assert.deepEqual(person.properties, { tx_0: 0, tx_1: 1, tx_2: 2, tx_3: 3, tx_4: 4, tx_5: 5 });
  }
});

test('a person merged away by a concurrent batch while we wait: we find its distinct ids on the surviving person', async () => {
  const source1 = fresh('src1');
  const source2 = fresh('src2');
  const target = fresh('target');
  await resolve(t, [event('$pageview', source1), event('$create_alias', source1, { alias: source2 }), event('$identify', target)]);
  const source = (await personOf(t, source1))!;
  await t.db.pool.query('UPDATE persons SET is_identified = false WHERE id = $1', [source.id]);
  const survivor = (await personOf(t, target))!;
  const before = await personCount(t);

  const merging = await openTx();
  const late = await openTx();
  {
    // Merges the source (ids source1 and source2) into the target; holds both person rows.
    await merging.resolve([event('$identify', target, { $anon_distinct_id: source1 })]);
    // Names only source2, whose advisory lock is free: it waits for the source person's row.
    const lateMap = late.resolve([event('$pageview', source2, { $set: { late: true } })]);
    await blockedOnLock(late.pid);
    await merging.commit();
    const map = await lateMap;
    await late.commit();
    assert.equal(map.get(source2), survivor.uuid);
  }
  assert.equal(await personExists(t, source.id), false);
  assert.equal(await personCount(t), before - 1);
  const person = (await personOf(t, source2))!;
  assert.equal(person.id, survivor.id);
  assert.deepEqual(new Set(person.distinct_ids), new Set([source1, source2, target]));
  assert.equal(person.properties.late, true);
  assert.equal(await distinctIdRows(source2), 1);
});

async function advisoryLocksHeld(pid: number): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND granted",
    [pid],
  );
  return rows[0].n;
}

test('a batch with very many distinct ids takes one project lock, not one lock per id; small batches wait for it', async () => {
  const many = Array.from({ length: MAX_DISTINCT_ID_LOCKS + 100 }, (_, i) => fresh(`bulk${i}`));
  const small = fresh('small');
  const big = await openTx();
  const other = await openTx();
  const unrelated = await openTx();
  const bigMap = await big.resolve(many.map((d) => event('$pageview', d, { $set: { bulk: true } })));
  assert.equal(await advisoryLocksHeld(big.pid), 1);
  // A small batch naming one of the ids, and one naming none of them, both wait for the big one.
  const otherMap = other.resolve([event('$pageview', many[7], { $set: { later: true } })]);
  await blockedOnLock(other.pid);
  const unrelatedMap = unrelated.resolve([event('$pageview', small)]);
  await blockedOnLock(unrelated.pid);
  await big.commit();
  assert.equal((await otherMap).get(many[7]), bigMap.get(many[7]));
  assert.ok(await advisoryLocksHeld(other.pid) <= 2, 'the project lock (shared) and the one id');
  await other.commit();
  await unrelatedMap;
  await unrelated.commit();
  assert.deepEqual((await personOf(t, many[7]))!.properties, { bulk: true, later: true });
  assert.equal((await personOf(t, many[599]))!.uuid, bigMap.get(many[599]));
});

test('small batches do not wait for each other when their distinct ids differ', { timeout: 5000 }, async () => {
  const one = await openTx();
  const two = await openTx();
  await one.resolve([event('$pageview', fresh('x'))]);
  // Would hang (and time out) if the project lock were taken exclusively by small batches.
  await two.resolve([event('$pageview', fresh('y'))]);
  await one.commit();
  await two.commit();
});

test('a batch that changes no stored person takes no lock: it does not wait for a batch writing the same person', { timeout: 5000 }, async () => {
  const id = fresh('busy');
  await resolve(t, [event('$pageview', id, { $set: { plan: 'free' } })]);
  const stored = (await personOf(t, id))!;
  const writer = await openTx();
  const reader = await openTx();
  // Holds the id's advisory lock and the person's row lock until it commits.
  await writer.resolve([event('$pageview', id, { $set: { plan: 'pro' } })]);
  // Would hang (and time out) if it took the id's lock; its $set repeats what is stored.
  const map = await reader.resolve([event('$pageview', id), event('button clicked', id, { $set: { plan: 'free' } })]);
  assert.equal(map.get(id), stored.uuid);
  assert.equal(await advisoryLocksHeld(reader.pid), 0);
  await reader.commit();
  await writer.commit();
  assert.equal((await personOf(t, id))!.properties.plan, 'pro');
});

test('a batch that changes a stored person still waits for the batch writing it, and applies on top of it', async () => {
  const id = fresh('busy2');
  await resolve(t, [event('$pageview', id, { $set: { plan: 'free' } })]);
  const writer = await openTx();
  const later = await openTx();
  await writer.resolve([event('$pageview', id, { $set: { plan: 'pro' } })]);
  const pending = later.resolve([event('$pageview', id, { $set_once: { first_seen: 'x' } })]);
  await blockedOnLock(later.pid);
  await writer.commit();
  await pending;
  await later.commit();
  const person = (await personOf(t, id))!;
  assert.equal(person.properties.plan, 'pro');
  assert.equal(person.properties.first_seen, 'x');
});

test('two batches bringing different new group types at once get different indexes', async () => {
  const projectId = await newProject(t, 'parallel group types');
  const one = await openTx();
  const two = await openTx();
  {
    await one.resolve([event('$pageview', 'u1', { $groups: { alpha: 'a' } })], projectId);
    const second = two.resolve([event('$groupidentify', 'u2', { $group_type: 'beta', $group_key: 'b', $group_set: { n: 1 } })], projectId);
    await blockedOnLock(two.pid);
    await one.commit();
    await second;
    await two.commit();
  }
  assert.deepEqual(await groupTypes(t, projectId), { alpha: 0, beta: 1 });
  const { rows } = await t.db.pool.query('SELECT group_type_index, group_key FROM groups WHERE project_id = $1', [projectId]);
  assert.deepEqual(rows, [{ group_type_index: 1, group_key: 'b' }]);
});

test('many batches with the same new group type and group at once: one mapping, one group with every property', async () => {
  const projectId = await newProject(t, 'parallel same group');
  const txs = await Promise.all(Array.from({ length: 5 }, () => openTx()));
  await Promise.all(
    txs.map(async (tx, i) => {
      await tx.resolve(
        [
          event('$pageview', `u${i}`, { $groups: { company: 'acme', [`type${i % 2}`]: 'x' } }),
          event('$groupidentify', `u${i}`, { $group_type: 'company', $group_key: 'acme', $group_set: { [`p${i}`]: i } }),
        ],
        projectId,
      );
      await tx.commit();
    }),
  );
  const types = await groupTypes(t, projectId);
  assert.deepEqual(Object.keys(types).sort(), ['company', 'type0', 'type1']);
  assert.deepEqual(Object.values(types).sort(), [0, 1, 2]);
  const { rows } = await t.db.pool.query('SELECT group_properties FROM groups WHERE project_id = $1', [projectId]);
  assert.equal(rows.length, 1);
  assert.deepEqual(rows[0].group_properties, { p0: 0, p1: 1, p2: 2, p3: 3, p4: 4 });
});
