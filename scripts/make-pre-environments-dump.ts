/**
 * Makes test/fixtures/pre-environments.sql(.json): a database migrated and filled by the release
 * before projects had environments (commit 72ab8a1), dumped with pg_dump. Run it from any checkout:
 *   git worktree add --detach /tmp/old 72ab8a1 && ln -s "$PWD/node_modules" /tmp/old/node_modules
 *   npx tsx scripts/make-pre-environments-dump.ts /tmp/old
 * The JSON holds what the dump stores only hashed (the owner's key, the secret tokens), so that
 * the migration test can prove they still work.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const oldCheckout = path.resolve(process.argv[2] ?? '');
const admin = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const database = `bw_pre_env_dump_${process.pid}`;
const url = Object.assign(new URL(admin), { pathname: `/${database}` }).toString();
const out = path.resolve(import.meta.dirname, '../test/fixtures');

const { createPool } = await import(path.join(oldCheckout, 'src/db/pool.ts'));
const { migrate } = await import(path.join(oldCheckout, 'src/db/migrate.ts'));
const { bootstrap } = await import(path.join(oldCheckout, 'src/accounts/bootstrap.ts'));
const { buildApp } = await import(path.join(oldCheckout, 'src/app.ts'));

const server = new pg.Client({ connectionString: admin });
await server.connect();
await server.query(`CREATE DATABASE ${database}`);
const pool = createPool(url, 4);
try {
  await migrate(pool);
  const key = 'phx_pre_environments_fixture_key_0123456789abcdef';
  await bootstrap(pool, key);
  const app = await buildApp({ pool, databaseUrl: url });
  await app.ready();
  const call = async (method: string, urlPath: string, payload?: unknown, expected = 200) => {
    const res = await app.inject({ method, url: urlPath, payload: payload as object, headers: { authorization: `Bearer ${key}` } });
    if (res.statusCode !== expected) throw new Error(`${method} ${urlPath}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const first = await call('PATCH', '/api/projects/1/rotate_secret_token/');
  const second = await call('POST', '/api/projects/', { name: 'Second' }, 201);
  const flag = (key: string, rollout: number) => ({ key, name: key, active: true, filters: { groups: [{ properties: [], rollout_percentage: rollout }] } });
  await call('POST', '/api/projects/1/feature_flags/', flag('first-only', 100), 201);
  await call('POST', '/api/projects/1/feature_flags/', flag('half', 50), 201);
  await call('POST', `/api/projects/${second.id}/feature_flags/`, flag('second-only', 100), 201);
  await call('POST', '/api/projects/1/cohorts/', { name: 'Everyone', groups: [{ properties: [] }] }, 201).catch(() => null);
  await call('POST', '/api/projects/1/surveys/', { name: 'How are we doing?', type: 'popover', questions: [{ type: 'open', question: 'Well?' }] }, 201);
  for (const [token, id] of [[first.api_token, 'alice'], [second.api_token, 'bob']]) {
    const res = await app.inject({
      method: 'POST',
      url: '/batch/',
      payload: { api_key: token, batch: [{ event: '$pageview', distinct_id: id, properties: { $set: { email: `${id}@example.com` } } }] },
    });
    if (res.statusCode !== 200) throw new Error(`batch: ${res.statusCode} ${res.body}`);
  }
  await app.close();
  const dump = execFileSync('pg_dump', ['--no-owner', '--no-privileges', url], { maxBuffer: 64 * 1024 * 1024 }).toString();
  writeFileSync(path.join(out, 'pre-environments.sql'), dump);
  const secrets = {
    commit: '72ab8a1',
    key,
    projects: [
      { id: 1, api_token: first.api_token, secret_api_token: first.secret_api_token },
      { id: second.id, api_token: second.api_token, secret_api_token: second.secret_api_token },
    ],
  };
  writeFileSync(path.join(out, 'pre-environments.json'), `${JSON.stringify(secrets, null, 2)}\n`);
} finally {
  await pool.end();
  await server.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await server.end();
}
