import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Pool, type PoolClient } from '../../src/db/pool.ts';
import { UnitsOfWork, type WriteTx } from '../../src/db/unit-of-work.ts';

/** The machine's PostgreSQL (trust auth); TEST_DATABASE_URL overrides it. */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A fresh database of its own for one test file, migrated unless told not to; dropped afterwards. */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const name = `bw_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDatabase(ADMIN_URL, name);
  const pool = createPool(url, 8);
  if (options.migrate ?? true) await migrate(pool);
  return {
    url,
    pool,
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Runs a test's set-up write in a unit of work of its own (committed when `work` resolves). */
export function inUnit<T>(pool: Pool, work: (tx: WriteTx) => Promise<T>): Promise<T> {
  return new UnitsOfWork(pool).run((unit) => work(unit.client));
}

/**
 * A transaction a test opened by hand on `client` (to hold two open at once, to count statements),
 * typed as the handle a unit of work gives its writes.
 */
export function handOpened(client: PoolClient): WriteTx {
  return client as unknown as WriteTx;
}
