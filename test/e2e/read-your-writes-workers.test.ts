// Read-your-writes across the workers of one node (WORKERS=2, the default on these 2 cores): the
// primary deals each new connection to the next worker (NODE_CLUSTER_SCHED_POLICY=rr; by default
// the kernel picks, which mixes them less evenly), so a write acknowledged by one worker is read
// back at once, on a new connection, by the other. Flags, surveys and cohorts; 0 stale.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { FLAG_ROUNDS, OTHER_ROUNDS, readAfterWriteRun } from './support/read-after-write.ts';
import { startService, type Service } from './support/service.ts';

describe('read your writes across the workers of one node', { timeout: 3 * 60_000 }, () => {
  let db: TestDatabase;
  let node: Service;
  const key = `phx_${'ryw'.repeat(4)}${Date.now().toString(36)}`;

  before(async () => {
    db = await createTestDatabase();
    // The primary deals connections out in turn: consecutive requests go to different workers.
    node = await startService({ DATABASE_URL: db.url, INIT_API_KEY: key, WORKERS: '2', NODE_CLUSTER_SCHED_POLICY: 'rr' });
  });
  after(async () => {
    await node?.stop();
    await db?.drop();
  });

  test('every write read back at once by the next connection (the other worker)', async () => {
    const tally = await readAfterWriteRun(key, 'workers', () => ({ writer: node.url, reader: node.url }));
    assert.equal(tally.total, FLAG_ROUNDS * 4 + OTHER_ROUNDS * 8);
    assert.equal(tally.stale, 0, tally.report());
  });
});
