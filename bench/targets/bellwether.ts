import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnService, type ServiceProcess } from '../lib/child.ts';
import { createBenchDatabase, type BenchDatabase } from '../lib/database.ts';
import { expectStatus, request } from '../lib/http.ts';
import type { Operation, OperationPlan, Target } from './target.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROJECT = 1;
const FLAGS = `/api/projects/${PROJECT}/feature_flags`;

/** The project's public token (`phc_…`), as SDKs send it. */
export async function projectToken(target: Pick<Target, 'baseUrl' | 'headers'>): Promise<string> {
  const project = await expectStatus(200, 'GET', `${target.baseUrl}/api/projects/${PROJECT}/`, target.headers);
  const token = (project.body as { api_token?: unknown }).api_token;
  if (typeof token !== 'string' || !token.startsWith('phc_')) throw new Error(`project ${PROJECT} has no phc_ token: ${project.text.slice(0, 300)}`);
  return token;
}

function listPage(body: unknown): { count: number; results: unknown[] } | null {
  const page = body as { count?: unknown; results?: unknown } | null;
  if (!page || !Array.isArray(page.results)) return null;
  return { count: typeof page.count === 'number' ? page.count : -1, results: page.results };
}

/** Extra node options for the server (not allowed in NODE_OPTIONS, such as --cpu-prof). */
function serverNodeArgs(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
}

/** Bellwether with its database's address, for scenarios that seed or count with SQL. */
export interface BellwetherTarget extends Target {
  databaseUrl: string;
  /**
   * Stops the process and starts a new one on the same database (same key, new port and pid),
   * e.g. after seeding with SQL, so that its in-memory caches start from what is stored.
   * The returned target replaces this one (whose `stop` then stops the new process too).
   */
  restart(): Promise<BellwetherTarget>;
}

/**
 * Our service as it runs in production: its own process (`node --import tsx src/main.ts`; one
 * worker unless `options.workers`), an external PostgreSQL, logging at warn in plain JSON.
 * `options.root`: another checkout of the project to run instead of this one (a baseline build).
 */
export async function startBellwether(
  adminDatabaseUrl: string,
  options: { workers?: number; root?: string; env?: Record<string, string> } = {},
): Promise<BellwetherTarget> {
  const database: BenchDatabase = await createBenchDatabase(adminDatabaseUrl, 'bellwether');
  let service: ServiceProcess | null = null;
  const stop = async () => {
    try {
      await service?.stop();
    } finally {
      await database.drop();
    }
  };
  const apiKey = `phx_bench_${randomBytes(24).toString('base64url')}`;
  const headers = { authorization: `Bearer ${apiKey}` };
  const launch = async (): Promise<BellwetherTarget> => {
    const { baseUrl, process: running } = await spawnBellwether(database.url, apiKey, options.workers ?? 1, 'Bellwether', options.root, options.env);
    service = running;
    await verifyAuthentication(baseUrl, headers);
    const target = bellwetherTarget(baseUrl, headers, { pid: running.pid, databaseName: database.name, output: running.output }, stop);
    return {
      ...target,
      databaseUrl: database.url,
      restart: async () => {
        await running.stop();
        return launch();
      },
    };
  };
  try {
    return await launch();
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One server process on `databaseUrl` with `apiKey`, once `/_health` answers. */
async function spawnBellwether(
  databaseUrl: string,
  apiKey: string,
  workers: number,
  name = 'Bellwether',
  root = REPO_ROOT,
  extraEnv: Record<string, string> = {},
): Promise<{ baseUrl: string; process: ServiceProcess }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const running = await spawnService({
    name,
    command: process.execPath,
    // BENCH_SERVER_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`: profiling the server under load.
    args: [...serverNodeArgs(), '--import', 'tsx', 'src/main.ts'],
    // `root`: another checkout (e.g. main's, for a before/after in one run) using this one's node_modules.
    cwd: root,
    env: {
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      INIT_API_KEY: apiKey,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      // One process unless a scenario compares worker counts: the other scenarios' figures stay comparable.
      WORKERS: String(workers),
      ...extraEnv,
    },
    readyUrl: `${baseUrl}/_health`,
    // A first start compiles the sources (tsx's cache is cold) in every worker; on shared, loaded cores that can take minutes.
    readyTimeoutMs: 300_000,
  });
  return { baseUrl, process: running };
}

/** A server process of its own beside `target`, on the same database and key: nodes sharing one PostgreSQL. */
export interface NodeProcess {
  name: string;
  baseUrl: string;
  pid: number;
  databaseName: string;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

export async function startAnotherNode(target: BellwetherTarget, name: string, workers = 1, env: Record<string, string> = {}): Promise<NodeProcess> {
  const apiKey = target.headers.authorization.replace(/^Bearer /, '');
  const { baseUrl, process: running } = await spawnBellwether(target.databaseUrl, apiKey, workers, name, REPO_ROOT, env);
  return { name, baseUrl, pid: running.pid, databaseName: target.databaseName, headers: target.headers, stop: () => running.stop() };
}

/** No key: 401; our key: 200. A 404 means the flag endpoints are not there (yet). */
async function verifyAuthentication(baseUrl: string, headers: Record<string, string>): Promise<void> {
  const anonymous = await request('GET', `${baseUrl}${FLAGS}/`, {});
  if (anonymous.status === 404) {
    throw new Error(`Bellwether answers 404 on ${FLAGS}/: the feature flag endpoints are not available in this build`);
  }
  if (anonymous.status !== 401) {
    throw new Error(`Bellwether without a key answered ${anonymous.status}, expected 401: ${anonymous.text.slice(0, 300)}`);
  }
  await expectStatus(200, 'GET', `${baseUrl}${FLAGS}/`, headers);
}

function bellwetherTarget(
  baseUrl: string,
  headers: Record<string, string>,
  owner: { pid: number; databaseName: string; output: () => string },
  stop: () => Promise<void>,
): Target {
  const seededIds: number[] = [];
  let created = 0;
  let patched = 0;
  let seedCount = 0;

  const plans: Record<Operation, () => OperationPlan> = {
    create: () => ({
      method: 'POST',
      next: () => {
        created += 1;
        return {
          path: `${FLAGS}/`,
          body: JSON.stringify({
            key: `bench-${created}`,
            name: `Bench flag ${created}`,
            filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
          }),
        };
      },
      check: (body) => (typeof (body as { id?: unknown })?.id === 'number' ? null : 'the answer has no numeric id'),
    }),
    retrieve: () => {
      const id = seededIds[0];
      return {
        method: 'GET',
        next: () => ({ path: `${FLAGS}/${id}/` }),
        check: (body) => ((body as { id?: unknown })?.id === id ? null : `the answer is not flag ${id}`),
      };
    },
    list: () => ({
      method: 'GET',
      next: () => ({ path: `${FLAGS}/?limit=50` }),
      check: (body) => {
        const page = listPage(body);
        if (!page) return 'the answer has no results array';
        if (page.results.length !== 50) return `the page holds ${page.results.length} flags, expected 50`;
        if (page.count < seedCount) return `count is ${page.count}, expected at least ${seedCount}`;
        return null;
      },
    }),
    patch: () => ({
      method: 'PATCH',
      next: () => {
        patched += 1;
        const id = seededIds[patched % seededIds.length];
        return { path: `${FLAGS}/${id}/`, body: JSON.stringify({ name: `Patched by the benchmark ${patched}` }) };
      },
      check: (body) => (typeof (body as { id?: unknown })?.id === 'number' ? null : 'the answer has no numeric id'),
    }),
  };

  return {
    name: 'Bellwether',
    baseUrl,
    ...owner,
    headers,
    notes: { process: 'node --import tsx src/main.ts', logLevel: 'warn', projectId: PROJECT },
    async seed(count) {
      for (let i = 0; i < count; i += 1) {
        const body = JSON.stringify({
          key: `seed-${i}`,
          name: `Seeded flag ${i}`,
          filters: { groups: [{ properties: [], rollout_percentage: 50 }] },
        });
        const result = await expectStatus(201, 'POST', `${baseUrl}${FLAGS}/`, headers, body);
        seededIds.push((result.body as { id: number }).id);
      }
      seedCount = count;
    },
    plan: (operation) => plans[operation](),
    stop,
  };
}
