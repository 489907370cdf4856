import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PACKAGE_ROOT } from './package-root.ts';
import { createPool, type Pool } from './pool.ts';

const MIGRATIONS_DIR = path.join(PACKAGE_ROOT, 'src', 'db', 'migrations');
// Any constant works; it only has to be the same for every process sharing the database.
const MIGRATION_LOCK_ID = 727_001;

export interface MigrationResult {
  applied: string[];
}

/**
 * Applies every migrations/NNN_name.sql not yet recorded, each in its own transaction, under an
 * advisory lock so that several processes starting together migrate once. Migrations run without
 * the pool's statement and lock timeouts: one may rebuild a large table, and a process starting
 * beside another waits for that one's migrations. The connection is closed afterwards, so its
 * session settings never reach a request.
 */
export async function migrate(pool: Pool): Promise<MigrationResult> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f)).sort();
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SET statement_timeout = 0; SET lock_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         name text PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const done = new Set((await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(path.join(MIGRATIONS_DIR, file), 'utf8');
      try {
        await client.query('BEGIN');
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw new Error(`migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(file);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
    client.release(true);
  }
  return { applied };
}

/** `migrate` on a connection of its own to `connectionString` (a direct one: the lock is session-level). */
export async function migrateOn(connectionString: string): Promise<MigrationResult> {
  const pool = createPool(connectionString, 1);
  try {
    return await migrate(pool);
  } finally {
    await pool.end();
  }
}
