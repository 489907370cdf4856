// Before the tests: make sure the database the test helpers connect to exists (they create one
// database per test file from it), or say in one line what is missing.
import pg from 'pg';

export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

const quoteIdent = (name) => `"${name.replaceAll('"', '""')}"`;

/** Resolves with nothing when the database is there (created if it was missing), else with the one line to print. */
export async function ensureTestDatabase(url) {
  const target = new URL(url);
  const database = decodeURIComponent(target.pathname.slice(1)) || 'postgres';
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 5000, statement_timeout: 10000 });
  try {
    await client.connect();
  } catch (error) {
    return `PostgreSQL at ${target.host} is unreachable (${error.code ?? error.message}): the tests need a PostgreSQL server ` +
      `there (user postgres, trust auth), or TEST_DATABASE_URL=postgres://user:password@host:port/test naming one whose user may CREATE DATABASE.`;
  }
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${quoteIdent(database)}`).catch((error) => {
        if (error.code !== '42P04') throw error; // created meanwhile by another run
      });
      process.stdout.write(`created the database "${database}" the tests start from\n`);
    }
    return undefined;
  } catch (error) {
    return `Could not create the test database "${database}" on ${target.host} (${error.message}): ` +
      `create it (createdb -h ${target.hostname} -U ${target.username || 'postgres'} ${database}) or give the user CREATEDB.`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
