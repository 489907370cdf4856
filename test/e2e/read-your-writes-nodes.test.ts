// Read-your-writes across two nodes sharing one PostgreSQL (as behind deploy/nginx.conf): a write
// acknowledged by one node is read back at once by the other (A writes and B reads, then the other
// way round). Flags, surveys and cohorts; 0 stale.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { FLAG_ROUNDS, OTHER_ROUNDS, readAfterWriteRun } from './support/read-after-write.ts';
import { startService, type Service } from './support/service.ts';

describe('read your writes across two nodes', { timeout: 3 * 60_000 }, () => {
  let db: TestDatabase;
  let a: Service;
  let b: Service;
  const key = `phx_${'ryn'.repeat(4)}${Date.now().toString(36)}`;

  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, INIT_API_KEY: key, WORKERS: '1' };
    // One after the other: the first migrates and makes the key, the second finds them done.
    a = await startService(env);
    b = await startService(env);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  test('written on one node, read back at once on the other', async () => {
    const tally = await readAfterWriteRun(key, 'nodes', (i) => (i % 2 === 0 ? { writer: a.url, reader: b.url } : { writer: b.url, reader: a.url }));
    assert.equal(tally.total, FLAG_ROUNDS * 4 + OTHER_ROUNDS * 8);
    assert.equal(tally.stale, 0, tally.report());
  });
});
