import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import { ensureTestDatabase } from '../../scripts/test-database.mjs';
import { ADMIN_URL } from '../helpers/database.ts';

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return found.rowCount === 1;
  } finally {
    await client.end();
  }
}

async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await client.end();
}

test('a missing test database is created, and a second run leaves it alone', async (t) => {
  const name = `bw_preflight_${randomBytes(4).toString('hex')}`;
  t.after(() => dropDatabase(name));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  assert.equal(await ensureTestDatabase(url.toString()), undefined);
  assert.equal(await databaseExists(name), true);
  assert.equal(await ensureTestDatabase(url.toString()), undefined);
});

test('an unreachable server is told in one line naming the host and TEST_DATABASE_URL', async () => {
  const problem = await ensureTestDatabase('postgres://postgres@127.0.0.1:1/test');
  assert.ok(problem);
  assert.doesNotMatch(problem, /\n/);
  assert.match(problem, /127\.0\.0\.1:1 is unreachable \(ECONNREFUSED\)/);
  assert.match(problem, /TEST_DATABASE_URL=/);
});
