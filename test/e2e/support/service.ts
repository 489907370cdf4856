/** Starting the service in end-to-end tests: its sources through tsx (`npm start` runs them compiled, dist/server.mjs), or a given command. */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Generous: several engineers' tests share two cores, and each worker compiles the TypeScript on start. */
const START_TIMEOUT_MS = 180_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Service {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<Exit>;
  /** SIGTERM, then SIGKILL after `graceMs`; answers how it exited. */
  stop(graceMs?: number): Promise<Exit>;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what()}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what = 'condition'): Promise<number> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Runs `command` (default: the service's entry point) with `env` on top of this process's
 * environment (DATABASE_URL and INIT_API_KEY only when given) and waits for "Bellwether is running at".
 */
export async function startService(env: Record<string, string>, command = [process.execPath, '--import', 'tsx', 'src/main.ts']): Promise<Service> {
  const full: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env };
  for (const name of ['DATABASE_URL', 'DATABASE_LISTEN_URL', 'INIT_API_KEY', 'WORKERS', 'METRICS_PORT']) if (!(name in env)) delete full[name];
  delete full.NODE_TEST_CONTEXT;
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const output = () => `--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const running = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const match = /Bellwether is running at (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    void exited.then((exit) => reject(new Error(`the service exited (${JSON.stringify(exit)}) before it was running\n${output()}`)));
  });
  const url = await withTimeout(running, START_TIMEOUT_MS, () => `waiting for "Bellwether is running at"\n${output()}`).catch((error: unknown) => {
    // SIGTERM: the service stops what it started (a SIGKILL would leave its PostgreSQL running).
    child.kill('SIGTERM');
    throw error;
  });
  const health = await fetch(`${url}/_health`);
  assert.equal(health.status, 200, output());
  return {
    child,
    url,
    output,
    exited,
    async stop(graceMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Every process below `pid` (children, their children, …), from `ps`. */
export function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [child, ppid] of table) if (ppid === parent) (found.push(child), queue.push(child));
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
