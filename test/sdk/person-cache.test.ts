// The SDK's person cache (src/sdk/person-cache.ts): a person read once is served from memory, and
// is current again as soon as ingestion changes or merges it (in this process, and in another one
// through the `persons` notice); a read that raced with a notice is not kept.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ReadHandle } from '../../src/db/pool.ts';
import type { Change, ChangeBus } from '../../src/kernel/changes/bus.ts';
import { PersonCache } from '../../src/sdk/person-cache.ts';
import { eventually } from '../helpers/eventually.ts';
import { noticesHeard } from '../helpers/notices.ts';
import { capture, createFlag, identify, notifyChange, postFlags, startSdkApp, type SdkTestApp } from './support.ts';

let t: SdkTestApp;
const heard: Change[] = [];

before(async () => {
  t = await startSdkApp();
  t.app.kernel.bus.subscribe((change) => heard.push(change));
  await createFlag(t, {
    key: 'pro-only',
    filters: { groups: [{ properties: [{ key: 'plan', operator: 'exact', value: 'pro', type: 'person' }], rollout_percentage: 100 }] },
  });
});
after(() => t?.close());

async function proOnly(distinctId: string): Promise<boolean> {
  const response = await postFlags(t, { distinct_id: distinctId });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().flags['pro-only'].enabled;
}

/** Changes the stored properties behind ingestion's back: only a cached person still shows the old ones. */
async function setPlanDirectly(distinctId: string, plan: string): Promise<void> {
  const { rowCount } = await t.db.pool.query(
    `UPDATE persons p SET properties = p.properties || jsonb_build_object('plan', $3::text)
       FROM person_distinct_ids d WHERE d.project_id = $1 AND d.distinct_id = $2 AND p.id = d.person_id`,
    [t.projectId, distinctId, plan],
  );
  assert.equal(rowCount, 1);
}

async function personIdOf(distinctId: string): Promise<number> {
  const { rows } = await t.db.pool.query<{ person_id: string }>(
    'SELECT person_id FROM person_distinct_ids WHERE project_id = $1 AND distinct_id = $2',
    [t.projectId, distinctId],
  );
  return Number(rows[0].person_id);
}

describe('the person cache behind /flags', () => {
  test('a person is read once, then served from memory', async () => {
    await capture(t, [identify('cached-1', { plan: 'pro' })]);
    assert.equal(await proOnly('cached-1'), true);
    await setPlanDirectly('cached-1', 'free');
    assert.equal(await proOnly('cached-1'), true, 'the stored person was read again');
  });

  test('a person changed by ingestion is current on the next request, and the batch says which person', async () => {
    await capture(t, [identify('changing', { plan: 'free' })]);
    assert.equal(await proOnly('changing'), false);
    heard.length = 0;
    await capture(t, [identify('changing', { plan: 'pro' })]);
    assert.equal(await proOnly('changing'), true);
    const id = await personIdOf('changing');
    assert.deepEqual(
      heard.filter((change) => change.kind === 'persons'),
      [{ kind: 'persons', projectId: t.projectId, ids: [id] }],
    );
  });

  test('a batch that changes no stored person sends no persons notice', async () => {
    await capture(t, [identify('steady', { plan: 'pro' })]);
    heard.length = 0;
    await capture(t, [{ event: 'clicked', distinct_id: 'steady', properties: {} }, identify('brand-new', { plan: 'pro' })]);
    assert.deepEqual(heard.filter((change) => change.kind === 'persons'), []);
  });

  test('a merge moves a cached distinct id to the surviving person at once', async () => {
    await capture(t, [
      { event: 'viewed', distinct_id: 'anon-7', properties: { $set: { plan: 'pro' } } },
      identify('user-7', { plan: 'free' }),
    ]);
    assert.equal(await proOnly('anon-7'), true);
    await capture(t, [{ event: '$identify', distinct_id: 'user-7', properties: { $anon_distinct_id: 'anon-7' } }]);
    assert.equal(await personIdOf('anon-7'), await personIdOf('user-7'), 'merged');
    assert.equal(await proOnly('anon-7'), false, "the merged person's properties (the identified one's win)");
  });

  test("another process's notice drops the persons it names, and only those", async () => {
    await capture(t, [identify('remote-a', { plan: 'pro' }), identify('remote-b', { plan: 'pro' })]);
    assert.equal(await proOnly('remote-a'), true);
    assert.equal(await proOnly('remote-b'), true);
    await setPlanDirectly('remote-a', 'free');
    await setPlanDirectly('remote-b', 'free');
    await notifyChange(t, { kind: 'persons', projectId: t.projectId, ids: [await personIdOf('remote-a')] });
    await noticesHeard(t.app.kernel.bus, t.db.pool);
    assert.equal(await proOnly('remote-a'), false);
    assert.equal(await proOnly('remote-b'), true, 'a person the notice does not name stays cached');
    await notifyChange(t, { kind: 'persons', projectId: t.projectId });
    await eventually('a notice without ids drops every person of the project', async () => !(await proOnly('remote-b')));
  });

  test('a distinct id without a person is not remembered', async () => {
    assert.equal(await proOnly('later-person'), false);
    await capture(t, [identify('later-person', { plan: 'pro' })]);
    assert.equal(await proOnly('later-person'), true);
  });
});

/** A bus stand-in: notices are handed to the cache by `emit`; `hears` says whether every change is heard. */
function fakeBus(hears = true) {
  const handlers: ((change: Change) => void)[] = [];
  const resyncs: (() => void)[] = [];
  const bus = {
    hearsEveryChange: hears,
    subscribe: (handler: (change: Change) => void) => handlers.push(handler),
    onResync: (handler: () => void) => resyncs.push(handler),
  };
  return {
    bus: bus as unknown as ChangeBus,
    emit: (change: Change) => handlers.forEach((handler) => handler(change)),
    resync: () => resyncs.forEach((handler) => handler()),
    set hears(value: boolean) {
      bus.hearsEveryChange = value;
    },
  };
}

/** A database stand-in answering one person; each read can be held until released. */
function fakeDb(personId: number, plan: () => string) {
  let reads = 0;
  let gate: Promise<void> | null = null;
  const db = {
    async query() {
      reads++;
      const value = plan();
      if (gate) await gate;
      return { rows: [{ person_id: personId, properties: { plan: value } }] };
    },
  };
  return {
    db: db as unknown as ReadHandle,
    get reads() {
      return reads;
    },
    hold(): () => void {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = null;
        release();
      };
    },
  };
}

describe('PersonCache', () => {
  test('a read that raced with a notice of its project is served but not kept', async () => {
    const { bus, emit } = fakeBus();
    const cache = new PersonCache(bus);
    let plan = 'free';
    const db = fakeDb(5, () => plan);
    const release = db.hold();
    const reading = cache.person(db.db, 1, 'racer');
    emit({ kind: 'persons', projectId: 1, ids: [5] });
    release();
    assert.deepEqual((await reading).properties, { plan: 'free' });
    plan = 'pro';
    assert.deepEqual((await cache.person(db.db, 1, 'racer')).properties, { plan: 'pro' }, 'read again');
    assert.deepEqual((await cache.person(db.db, 1, 'racer')).properties, { plan: 'pro' });
    assert.equal(db.reads, 2, 'kept after a read no notice raced with');
  });

  test('nothing is served or kept while notices may be missed; a resync empties it', async () => {
    const fake = fakeBus();
    const cache = new PersonCache(fake.bus);
    const db = fakeDb(9, () => 'pro');
    await cache.person(db.db, 1, 'p');
    assert.equal(cache.size, 1);
    fake.hears = false;
    await cache.person(db.db, 1, 'p');
    assert.equal(db.reads, 2, 'not served while deaf');
    fake.resync();
    assert.equal(cache.size, 0);
    await cache.person(db.db, 1, 'p');
    assert.equal(cache.size, 0, 'not kept while deaf');
    fake.hears = true;
    await cache.person(db.db, 1, 'p');
    await cache.person(db.db, 1, 'p');
    assert.equal(db.reads, 4);
  });

  test('a notice for another project or person leaves the entry; one for the project drops it; cached properties are read-only', async () => {
    const fake = fakeBus();
    const cache = new PersonCache(fake.bus);
    const db = fakeDb(3, () => 'pro');
    const first = await cache.person(db.db, 1, 'x');
    assert.throws(() => {
      (first.properties as Record<string, unknown>).plan = 'hacked';
    }, TypeError);
    fake.emit({ kind: 'persons', projectId: 2, ids: [3] });
    fake.emit({ kind: 'persons', projectId: 1, ids: [4] });
    assert.equal(cache.size, 1);
    fake.emit({ kind: 'project', projectId: 1 });
    assert.equal(cache.size, 0);
  });

  test('entries past the bound go, and their persons with them', async () => {
    const fake = fakeBus();
    const cache = new PersonCache(fake.bus, { max: 2 });
    for (const [i, id] of ['a', 'b', 'c'].entries()) await cache.person(fakeDb(i + 1, () => 'pro').db, 1, id);
    assert.equal(cache.size, 2);
    fake.emit({ kind: 'persons', projectId: 1, ids: [2, 3] });
    assert.equal(cache.size, 0);
  });
});
