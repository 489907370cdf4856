// Compiled by `npm run typecheck` (and the full test run), never executed: each
// `@ts-expect-error` below must stay an error, or the type check fails ("unused directive").
// It proves that a write takes only a unit of work's transaction (or, where documented, a
// `PoolWrite`), so the compiler refuses a write outside a unit.
import type { Pool, PoolClient, ReadHandle } from '../../src/db/pool.ts';
import { poolWrite, type UnitsOfWork, type WriteTx } from '../../src/db/unit-of-work.ts';
import { withBoundedRead } from '../../src/db/bounded-read.ts';
import { insertFlag, findFlag } from '../../src/flags/store.ts';
import { recordActivity } from '../../src/accounts/activity/store.ts';
import { touchSession } from '../../src/accounts/auth/store.ts';
import { insertSignInToken } from '../../src/accounts/sessions/store.ts';
import { writeLastCalled } from '../../src/sdk/store.ts';

export async function neverRun(pool: Pool, client: PoolClient, read: ReadHandle, units: UnitsOfWork): Promise<void> {
  const activity = { projectId: 1, scope: 'FeatureFlag', itemId: '1', activity: 'created', userId: null, detail: {} } as Parameters<typeof recordActivity>[1];

  // @ts-expect-error the pool is not a unit of work
  await recordActivity(pool, activity);
  // @ts-expect-error nor is a connection taken from it
  await recordActivity(client, activity);
  // @ts-expect-error nor a read handle
  await recordActivity(read, activity);
  // @ts-expect-error nor a bounded read's snapshot
  await withBoundedRead(pool, 1_000, (snapshot) => recordActivity(snapshot, activity));
  // @ts-expect-error a documented pool write is not a unit of work either
  await recordActivity(poolWrite(pool), activity);
  // @ts-expect-error a pool write names its handle: the bare pool is refused
  await touchSession(pool, 'hash');
  // @ts-expect-error and so is a unit's transaction, where only the pool is meant
  await units.run(({ client: tx }) => writeLastCalled(tx, []));
  // @ts-expect-error insertFlag is a writer like every other
  await insertFlag(pool, ...([] as unknown as Parameters<typeof insertFlag> extends [unknown, ...infer Rest] ? Rest : never));

  // What compiles: a write in a unit, a documented pool write, a read on anything.
  await units.run(({ client: tx }) => recordActivity(tx, activity));
  await units.run(({ client: tx }) => insertSignInToken(tx, { hash: 'h', userId: 1, ttlMs: 1 }));
  await insertSignInToken(poolWrite(pool), { hash: 'h', userId: 1, ttlMs: 1 });
  await touchSession(poolWrite(pool), 'hash');
  await findFlag(pool, 1, 1);
  await units.run(({ client: tx }) => findFlag(tx, 1, 1));
  const tx = null as unknown as WriteTx;
  const asRead: ReadHandle = tx;
  void asRead;
}
