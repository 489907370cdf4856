// Starts the service as `npm start` does with WORKERS=1 (cluster-start.test.ts covers more workers;
// no DATABASE_URL: the embedded PostgreSQL in DATA_DIR) and checks what a new user sees: the printed
// URL, key and one-time sign-in link, health, the key and the link working, data surviving a
// restart, INIT_API_KEY, INIT_ADMIN_EMAIL/PASSWORD, and a clean, graceful stop; and the graceful
// stop on DATABASE_URL too.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { postgresIsRunning } from '../../src/db/embedded.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { never } from '../helpers/eventually.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// initdb alone took over a minute on these shared machines at load 24.
const START_TIMEOUT_MS = 120_000;
/** SIGTERM to exit, embedded PostgreSQL stopped: well under a second here; generous for slow CI. */
const STOP_TIMEOUT_MS = 10_000;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Service {
  child: ChildProcess;
  url: string;
  /** The `phx_` key printed on this start, or null when none was printed. */
  key: string | null;
  /** The one-time sign-in link printed on this start, or null. */
  signInLink: string | null;
  output(): string;
  exited: Promise<Exit>;
}

const children: ChildProcess[] = [];
/** Every embedded PostgreSQL the services started, to stop in `after` when a test failed. */
const postgresPids = new Set<number>();
let dataDir: string;

before(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'bw-e2e-'));
  // mkdtemp makes a 0700 folder, as a fresh clone under `mktemp -d` has: as root, the service
  // must make it reachable for the PostgreSQL system user itself.
});

after(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  // A service killed above leaves its PostgreSQL running: stop those too.
  for (const pid of postgresPids) {
    if (!postgresIsRunning(pid)) continue;
    process.kill(pid, 'SIGQUIT');
    await until(() => !postgresIsRunning(pid), STOP_TIMEOUT_MS).catch(() => {
      if (postgresIsRunning(pid)) process.kill(pid, 'SIGKILL');
    });
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The embedded server's pid and port from its postmaster.pid, or null when there is none. */
function postmaster(): { pid: number; port: number } | null {
  const file = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

function portAcceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what()}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** `node --import tsx src/main.ts` from the repository root: the sources `npm start` runs compiled (dist/server.mjs). */
async function startService(extraEnv: Record<string, string> = {}): Promise<Service> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WORKERS: '1', ...extraEnv };
  if (!('DATABASE_URL' in extraEnv)) delete env.DATABASE_URL;
  for (const name of ['INIT_API_KEY', 'INIT_ADMIN_EMAIL', 'INIT_ADMIN_PASSWORD', 'SITE_URL']) {
    if (!(name in extraEnv)) delete env[name];
  }
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const output = () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const running = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /Bellwether is running at (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    };
    child.stdout!.on('data', onData);
    void exited.then((exit) => reject(new Error(`the service exited (${JSON.stringify(exit)}) before it was running\n${output()}`)));
  });
  const url = await withTimeout(running, START_TIMEOUT_MS, () => `waiting for "Bellwether is running at"\n${output()}`);
  // The key is written right after the URL line; a round trip makes sure it has arrived.
  const health = await fetch(`${url}/_health`);
  assert.equal(health.status, 200, output());
  const key = /^\s+(phx_[\w-]+)\s*$/m.exec(stdout)?.[1] ?? null;
  const signInLink = /^\s+(http:\/\/\S+\/login\/one-time#token=[\w-]+)\s*$/m.exec(stdout)?.[1] ?? null;
  const server = postmaster();
  if (server) postgresPids.add(server.pid);
  return { child, url, key, signInLink, output, exited };
}

/** SIGTERM; the service must exit 0 within STOP_TIMEOUT_MS with its PostgreSQL stopped. */
async function stopService(service: Service): Promise<void> {
  const server = postmaster();
  assert.ok(server, 'the embedded PostgreSQL is running (postmaster.pid exists)');
  service.child.kill('SIGTERM');
  const exit = await withTimeout(service.exited, STOP_TIMEOUT_MS, () => `waiting for exit after SIGTERM\n${service.output()}`);
  assert.deepEqual(exit, { code: 0, signal: null }, service.output());
  assert.equal(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), false, 'postmaster.pid removed');
  assert.equal(postgresIsRunning(server.pid), false, `postgres (pid ${server.pid}) stopped`);
  assert.equal(await portAcceptsConnections(server.port), false, `port ${server.port} no longer accepts connections`);
}

/**
 * Sends the headers and half the body of a flag creation, SIGTERMs the service, then sends the
 * rest: the request must still be answered in full (with `Connection: close`), and the service
 * must then exit 0. Returns the created flag.
 */
async function createFlagAcrossShutdown(service: Service, key: string, flagKey: string): Promise<{ key: string }> {
  const { port } = new URL(service.url);
  const body = JSON.stringify({ key: flagKey, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
  const socket = net.connect(Number(port), '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));

  // Headers and half the body: the request is being handled when the signal comes.
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /api/projects/1/feature_flags/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  service.child.kill('SIGTERM');
  // For a while after the signal: no answer and no exit, read every 20 ms.
  await never(
    'an answer or an exit before the body is complete',
    async () => ({ received, exitCode: service.child.exitCode }),
    (now) => now.received !== '' || now.exitCode !== null,
    { timeoutMs: 500 },
  );
  socket.write(body.slice(half));

  await withTimeout(closed, STOP_TIMEOUT_MS, () => `waiting for the response and the connection to close; got ${JSON.stringify(received)}`);
  const [head, responseBody] = received.split('\r\n\r\n', 2);
  assert.match(head, /^HTTP\/1\.1 201 /, received);
  // Without it the connection would stay open until main.ts's shutdown grace period runs out.
  assert.match(head, /^connection: close$/im, 'a response while closing tells the client to close the connection');
  const length = Number(/^content-length: (\d+)$/im.exec(head)?.[1]);
  assert.equal(Buffer.byteLength(responseBody), length, 'the whole body arrived');

  const exit = await withTimeout(service.exited, STOP_TIMEOUT_MS, () => `waiting for exit after SIGTERM\n${service.output()}`);
  assert.deepEqual(exit, { code: 0, signal: null }, service.output());
  return JSON.parse(responseBody);
}

/** Posts the link's token as the console's one-time page does; the session and CSRF cookies back. */
async function useSignInLink(service: Service, link: string): Promise<Response> {
  const token = new URL(link).hash.replace(/^#token=/, '');
  return fetch(`${service.url}/api/login/one-time/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: service.url },
    body: JSON.stringify({ token }),
  });
}

function sessionHeaders(response: Response): Record<string, string> {
  const cookies = response.headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrf = cookies.find((c) => c.startsWith('bellwether_csrftoken='))!.split('=')[1];
  return { cookie: cookies.join('; '), 'x-csrftoken': csrf, 'content-type': 'application/json' };
}

function listFlags(service: Service, key: string): Promise<Response> {
  return fetch(`${service.url}/api/projects/1/feature_flags/`, { headers: { authorization: `Bearer ${key}` } });
}

describe('npm start on the embedded PostgreSQL', { timeout: 12 * 60_000 }, () => {
  let firstKey: string;

  test('first start prints the URL and a key; health, readiness and the key work; SIGTERM stops everything', async () => {
    const service = await startService();
    assert.match(service.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(service.key, `a phx_ key is printed on first start\n${service.output()}`);
    firstKey = service.key;
    assert.match(service.output(), /created a personal API key with scope "\*"/);
    assert.ok(service.signInLink?.startsWith(`${service.url}/login/one-time#token=`), `a sign-in link is printed\n${service.output()}`);
    const signedIn = await useSignInLink(service, service.signInLink!);
    assert.equal(signedIn.status, 200, await signedIn.clone().text());
    const me = await fetch(`${service.url}/api/users/@me/`, { headers: sessionHeaders(signedIn) });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { organization: { membership_level: number } }).organization.membership_level, 15, 'the owner');
    assert.equal((await useSignInLink(service, service.signInLink!)).status, 400, 'the link works once');

    assert.equal((await fetch(`${service.url}/_health`)).status, 200);
    const ready = await fetch(`${service.url}/_readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ok', database: 'ok' });

    const flags = await listFlags(service, firstKey);
    assert.equal(flags.status, 200, await flags.clone().text());
    assert.ok(Array.isArray((await flags.json()).results));
    assert.equal((await listFlags(service, 'phx_not-a-key')).status, 401);

    const server = postmaster();
    assert.ok(server && postgresIsRunning(server.pid) && (await portAcceptsConnections(server.port)));
    await stopService(service);
  });

  test('a second start prints no key and, while nobody has a password, a new link; the first key still works', async () => {
    const service = await startService();
    assert.equal(service.key, null, service.output());
    assert.doesNotMatch(service.output(), /phx_/);
    assert.equal((await listFlags(service, firstKey)).status, 200);
    assert.ok(service.signInLink, service.output());
    const signedIn = await useSignInLink(service, service.signInLink);
    assert.equal(signedIn.status, 200);
    const password = await fetch(`${service.url}/api/users/@me/`, {
      method: 'PATCH',
      headers: sessionHeaders(signedIn),
      body: JSON.stringify({ password: 'a password of my own' }),
    });
    assert.equal(password.status, 200, await password.text());
    await stopService(service);

    const third = await startService();
    assert.equal(third.signInLink, null, `once the owner has a password no link is printed\n${third.output()}`);
    await stopService(third);
  });

  test('a postmaster.pid whose pid now belongs to another program does not block the start', async () => {
    // After a crash or a container restart the old server's pid is often reused; here by this test process.
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const fake = `${process.pid}\n${path.join(dataDir, 'postgres')}\n0\n1\n`;
    writeFileSync(pidFile, fake);
    try {
      const service = await startService();
      assert.equal((await listFlags(service, firstKey)).status, 200);
      await stopService(service);
    } finally {
      // Left behind by a failed start, it would fail every later test too.
      if (existsSync(pidFile) && readFileSync(pidFile, 'utf8') === fake) rmSync(pidFile);
    }
  });

  test('INIT_API_KEY makes that exact key work', async () => {
    const initKey = `phx_${'e2e'.repeat(4)}${Date.now().toString(36)}`;
    const service = await startService({ INIT_API_KEY: initKey });
    assert.equal(service.key, null, 'no key is generated when INIT_API_KEY is given');
    assert.equal((await listFlags(service, initKey)).status, 200);
    assert.equal((await listFlags(service, firstKey)).status, 200);
    await stopService(service);
  });

  test('INIT_ADMIN_EMAIL / INIT_ADMIN_PASSWORD: that owner signs in with that password, which is never printed', async () => {
    const password = 'operator chosen passphrase';
    const env = { INIT_ADMIN_EMAIL: 'ops@example.com', INIT_ADMIN_PASSWORD: password, LOG_LEVEL: 'debug' };
    const service = await startService(env);
    assert.equal(service.signInLink, null);
    const login = await fetch(`${service.url}/api/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@example.com', password }),
    });
    assert.equal(login.status, 200, await login.clone().text());
    assert.ok(!service.output().includes(password), 'the password is not in the output');
    await stopService(service);
    // Idempotent: the same start again changes nothing and still works.
    const again = await startService(env);
    assert.equal((await fetch(`${again.url}/api/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password }) })).status, 200);
    assert.ok(!again.output().includes(password));
    await stopService(again);
  });

  test('SIGTERM lets a request in flight finish with a complete response, then exits 0', async () => {
    const service = await startService();
    const server = postmaster();
    const flag = await createFlagAcrossShutdown(service, firstKey, 'in-flight');
    assert.equal(flag.key, 'in-flight');
    assert.equal(postgresIsRunning(server!.pid), false, 'postgres stopped');

    // The write was committed before PostgreSQL stopped.
    const again = await startService();
    const flags = await (await listFlags(again, firstKey)).json();
    assert.ok(flags.results.some((f: { key: string }) => f.key === 'in-flight'), JSON.stringify(flags));
    await stopService(again);
  });
});

describe('npm start on DATABASE_URL', { timeout: 2 * 60_000 }, () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(async () => {
    await db?.drop();
  });

  test('SIGTERM lets a request in flight finish, then exits 0 (no embedded PostgreSQL involved)', async () => {
    const key = `phx_${'url'.repeat(4)}${Date.now().toString(36)}`;
    const service = await startService({ DATABASE_URL: db.url, INIT_API_KEY: key });
    assert.equal(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid')), false, 'no embedded PostgreSQL');
    const flag = await createFlagAcrossShutdown(service, key, 'in-flight-url');
    const stored = await db.pool.query('SELECT 1 FROM feature_flags WHERE key = $1', [flag.key]);
    assert.equal(stored.rowCount, 1, 'committed before the pool closed');
  });
});
