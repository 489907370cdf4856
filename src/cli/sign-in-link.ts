// `npm run sign-in-link -- <e-mail>`: a one-time sign-in link for an existing person, printed
// here (a forgotten password, a person who never set one). Reaches the same database `npm start`
// does (DATABASE_URL, else the embedded PostgreSQL in DATA_DIR, which must not be running).
import { loadConfig } from '../config.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { createPool } from '../db/pool.ts';
import { poolWrite } from '../db/unit-of-work.ts';
import { findUserIdByEmail } from '../accounts/users/store.ts';
import { createSignInToken, signInLink } from '../accounts/sessions/sign-in-links.ts';

const email = process.argv[2]?.trim();
if (!email) {
  process.stderr.write('usage: npm run sign-in-link -- <e-mail of an existing person>\n');
  process.exit(2);
}
const config = loadConfig();
const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, (msg) => process.stderr.write(`${msg}\n`));
const pool = createPool(config.databaseUrl ?? embedded!.url, 1);
let status = 0;
try {
  const userId = await findUserIdByEmail(pool, email);
  if (userId === null) {
    process.stderr.write(`No one has the e-mail address ${email}.\n`);
    status = 1;
  } else {
    const base = config.siteUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
    process.stdout.write(`One-time sign-in link for ${email} (valid 24 hours):\n\n    ${signInLink(base, await createSignInToken(poolWrite(pool), userId))}\n\n`);
  }
} finally {
  await pool.end();
  await embedded?.stop();
}
process.exit(status);
