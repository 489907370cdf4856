// `npm run migrate` against a DATABASE_URL, and migrate() racing itself on one database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MIGRATIONS = readdirSync(path.join(ROOT, 'src/db/migrations'))
  .filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file))
  .sort();

const databases: TestDatabase[] = [];
after(async () => {
  await Promise.all(databases.map((db) => db.drop()));
});

async function freshDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrate: false });
  databases.push(db);
  return db;
}

async function recordedMigrations(db: TestDatabase): Promise<string[]> {
  const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
  return rows.map((row) => row.name);
}

/** `node --import tsx src/cli/migrate.ts`, what `npm run migrate` runs. */
function migrateCli(databaseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/migrate.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`migrate-cli did not finish within 60 s\n${stdout}\n${stderr}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('npm run migrate applies every migration on a fresh database, then says it is up to date', async () => {
  assert.ok(MIGRATIONS.length > 0);
  const db = await freshDatabase();

  const first = await migrateCli(db.url);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.equal(first.stdout.trim(), `applied ${MIGRATIONS.length} migration(s): ${MIGRATIONS.join(', ')}`);
  assert.deepEqual(await recordedMigrations(db), MIGRATIONS);
  const tables = await db.pool.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'personal_api_keys'");
  assert.equal(tables.rowCount, 1, 'the migrations really ran');

  const second = await migrateCli(db.url);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.equal(second.stdout.trim(), 'database is up to date');
  assert.deepEqual(await recordedMigrations(db), MIGRATIONS);
});

test('two migrate() calls at once on a fresh database both succeed and apply each migration once', async () => {
  const db = await freshDatabase();
  // Two pools, as two processes starting together would have.
  const other = createPool(db.url, 2);
  try {
    const [a, b] = await Promise.all([migrate(db.pool), migrate(other)]);
    assert.deepEqual([...a.applied, ...b.applied].sort(), MIGRATIONS, 'each migration applied by exactly one of them');
  } finally {
    await other.end();
  }
  const { rows } = await db.pool.query<{ name: string; n: number }>(
    'SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name ORDER BY name',
  );
  assert.deepEqual(
    rows,
    MIGRATIONS.map((name) => ({ name, n: 1 })),
  );
  assert.deepEqual((await migrate(db.pool)).applied, [], 'a third call finds nothing to do');
});
