// `npm run sign-in-link -- <e-mail>` against a DATABASE_URL: a link that signs that person in once;
// an unknown address or none is an error.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { buildApp, type App } from '../../src/app.ts';
import { bootstrap } from '../../src/accounts/bootstrap.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let db: TestDatabase;
let app: App;

before(async () => {
  db = await createTestDatabase();
  await bootstrap(db.pool, null);
  app = await buildApp({ pool: db.pool, databaseUrl: db.url });
});
after(async () => {
  await app?.close();
  await db?.drop();
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, SITE_URL: 'https://flags.example.com' };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/sign-in-link.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sign-in-link did not finish within 60 s\n${stdout}\n${stderr}`));
    }, 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('prints a one-time link for an existing person (any case) that signs them in once', { timeout: 90_000 }, async () => {
  const result = await cli(['ADMIN@bellwether.local']);
  assert.equal(result.code, 0, result.stderr);
  const link = /^\s+(https:\/\/flags\.example\.com\/login\/one-time#token=[\w-]+)\s*$/m.exec(result.stdout)?.[1];
  assert.ok(link, result.stdout);
  const token = new URL(link).hash.slice('#token='.length);
  const first = await app.inject({ method: 'POST', url: '/api/login/one-time/', payload: { token } });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal((await app.inject({ method: 'POST', url: '/api/login/one-time/', payload: { token } })).statusCode, 400);
});

test('an unknown address exits 1; no address exits 2 with the usage', { timeout: 90_000 }, async () => {
  const unknown = await cli(['nobody@example.com']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /No one has the e-mail address nobody@example\.com/);
  assert.equal(unknown.stdout, '');
  const none = await cli([]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /usage: npm run sign-in-link/);
});
