import { loadConfig } from '../config.ts';
import { startEmbeddedPostgres } from './embedded.ts';
import { migrate } from './migrate.ts';
import { createPool } from './pool.ts';

const config = loadConfig();
const log = (msg: string) => process.stdout.write(`${msg}\n`);
const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, log);
const pool = createPool(config.databaseUrl ?? embedded!.url, 2, { timeouts: config.databaseTimeouts });
try {
  const { applied } = await migrate(pool);
  log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database is up to date');
} finally {
  await pool.end();
  await embedded?.stop();
}
