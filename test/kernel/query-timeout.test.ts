import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { QueryTimedOut, withBoundedRead } from '../../src/db/bounded-read.ts';
import { ApiError } from '../../src/kernel/errors.ts';
import { createServer, kernel } from '../../src/kernel/plugin.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase({ migrate: false });
});
after(async () => {
  await db.drop();
});

const slowRead = () => withBoundedRead(db.pool, 50, (client) => client.query('SELECT pg_sleep(2)'));

test('a bounded read past its time fails in the database layer’s own terms, not as an HTTP error', async () => {
  const error = await slowRead().then(
    () => assert.fail('the read finished'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof QueryTimedOut, String(error));
  assert.ok(!(error instanceof ApiError));
  assert.equal((error.cause as { code?: string }).code, '57014');
  // The connection went back to the pool usable: the next read on it works.
  const { rows } = await withBoundedRead(db.pool, 1_000, (client) => client.query('SELECT 1 AS one'));
  assert.deepEqual(rows, [{ one: 1 }]);
});

test('the HTTP layer answers a timed-out read with 503 query_timeout', async () => {
  const app = createServer({});
  await app.register(kernel, { pool: db.pool, databaseUrl: null });
  app.get('/slow', { config: { public: true } }, async () => {
    await slowRead();
    return { done: true };
  });
  await app.ready();
  try {
    const response = await app.inject({ method: 'GET', url: '/slow' });
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json(), {
      type: 'server_error',
      code: 'query_timeout',
      detail: 'The query took too long. Narrow it (dates, filters) and try again.',
      attr: null,
    });
  } finally {
    await app.close();
  }
});
