import { loadConfig } from '../config.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { migrateOn } from '../db/migrate.ts';

const config = loadConfig();
const log = (msg: string) => process.stdout.write(`${msg}\n`);
const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, log);
try {
  const { applied } = await migrateOn(config.listenUrl ?? embedded!.url);
  log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database is up to date');
} finally {
  await embedded?.stop();
}
