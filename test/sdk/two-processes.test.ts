// Two service processes (`node --import tsx src/main.ts`, as `npm start` runs) on one database:
// what is changed through one is served by the other promptly, through LISTEN/NOTIFY — flag
// definitions (ETag), /flags answers, last_called_at from ingestion, and new group types.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const START_TIMEOUT_MS = 60_000;
/** What "promptly" means here: a notice travels in milliseconds; this bounds a slow machine. */
const PROMPTLY_MS = 3_000;
/** `last_called_at` is written in batches every 2 s and other processes look for it every 2 s. */
const LAST_CALLED_MS = 8_000;

interface Service {
  child: ChildProcess;
  url: string;
  output(): string;
}

let db: TestDatabase;
const key = generateSecret(PERSONAL_KEY_PREFIX);
let a: Service;
let b: Service;
let token: string;

async function startService(): Promise<Service> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, INIT_API_KEY: key, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WORKERS: '1' };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const output = () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within ${START_TIMEOUT_MS} ms\n${output()}`)), START_TIMEOUT_MS);
    child.stdout!.on('data', () => {
      const match = /Bellwether is running at (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before running\n${output()}`));
    });
  });
  return { child, url, output };
}

async function stop(service: Service | undefined): Promise<void> {
  if (!service || service.child.exitCode !== null) return;
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

before(async () => {
  db = await createTestDatabase();
  // One after the other: the first bootstraps the project and the key, the second finds them.
  a = await startService();
  b = await startService();
  const { rows } = await db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = 1');
  token = rows[0].api_token;
});
after(async () => {
  await Promise.all([stop(a), stop(b)]);
  await db.drop();
});

const auth = { authorization: `Bearer ${key}` };
const json = { 'content-type': 'application/json' };

async function send(service: Service, method: string, path: string, body?: unknown, headers: Record<string, string> = auth) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...json, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
}

/** How long until `check` holds (fails after PROMPTLY_MS). */
async function within(check: () => Promise<boolean>, what: string, limitMs = PROMPTLY_MS): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`${what}: not within ${limitMs} ms`);
}

const definitions = (service: Service, etag?: string) =>
  send(service, 'GET', `/flags/definitions?token=${token}&send_cohorts`, undefined, { ...auth, ...(etag ? { 'if-none-match': etag } : {}) });

test('a flag changed through process A: process B serves new definitions (new ETag) and /flags answers promptly', async () => {
  const created = await send(a, 'POST', '/api/projects/1/feature_flags/', { key: 'shared', filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
  assert.equal(created.status, 201);
  await within(async () => (await definitions(b)).body.flags.some((f: { key: string }) => f.key === 'shared'), 'the new flag in B');

  const before = await definitions(b);
  const etag = before.headers.get('etag')!;
  assert.equal((await definitions(b, etag)).status, 304, 'B answers 304 while nothing changed');
  const flagsOnB = async () => (await send(b, 'POST', '/flags/?v=2', { token, distinct_id: 'someone' }, {})).body.flags.shared.enabled;
  assert.equal(await flagsOnB(), false);

  const patched = await send(a, 'PATCH', `/api/projects/1/feature_flags/${created.body.id}/`, { filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  assert.equal(patched.status, 200);
  const ms = await within(async () => {
    const now = await definitions(b, etag);
    return now.status === 200 && now.headers.get('etag') !== etag;
  }, "B's definitions ETag changes");
  console.log(`B saw the change after ${ms} ms`);
  const fresh = await definitions(b);
  assert.equal(fresh.body.flags.find((f: { key: string }) => f.key === 'shared').filters.groups[0].rollout_percentage, 100);
  assert.equal(await flagsOnB(), true);
  assert.equal(fresh.headers.get('etag'), (await definitions(a)).headers.get('etag'), 'both processes serve the same definitions');
});

test('ingestion through A: last_called_at and new group types are seen by B', async () => {
  const created = await send(a, 'POST', '/api/projects/1/feature_flags/', { key: 'called' });
  await within(async () => (await send(b, 'GET', `/api/projects/1/feature_flags/${created.body.id}/`)).status === 200, 'flag readable on B');
  assert.equal((await send(b, 'GET', `/api/projects/1/feature_flags/${created.body.id}/`)).body.last_called_at, null);
  const initialTypes = (await definitions(b)).body.group_type_mapping;

  const batch = {
    api_key: token,
    batch: [
      { uuid: randomUUID(), event: '$feature_flag_called', distinct_id: 'u1', timestamp: '2024-09-01T00:00:00Z', properties: { $feature_flag: 'called' } },
      { uuid: randomUUID(), event: '$groupidentify', distinct_id: 'u1', properties: { $group_type: 'workspace', $group_key: 'w1', $group_set: { seats: 3 } } },
    ],
  };
  assert.equal((await send(a, 'POST', '/batch/', batch, {})).status, 200);
  await within(
    async () => (await send(b, 'GET', `/api/projects/1/feature_flags/${created.body.id}/`)).body.last_called_at?.startsWith('2024-09-01T00:00:00'),
    'last_called_at on B',
    // Buffered: written within 2 s by A, read within 2 s more by B (no change notice).
    LAST_CALLED_MS,
  );
  await within(async () => Object.values((await definitions(b)).body.group_type_mapping).includes('workspace'), 'the new group type on B');
  assert.ok(!Object.values(initialTypes).includes('workspace'));
});
