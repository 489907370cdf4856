import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnService, type ServiceProcess } from '../lib/child.ts';
import { createBenchDatabase, type BenchDatabase } from '../lib/database.ts';
import { expectStatus } from '../lib/http.ts';
import type { Operation, OperationPlan, Target } from '../targets/target.ts';
import { ensureUnleashInstalled, UNLEASH_DIR, UNLEASH_VERSION } from './unleash-install.ts';

const LAUNCHER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'unleash-launcher.mjs');
const FEATURES = '/api/admin/projects/default/features';
const SEARCH = '/api/admin/search/features?project=IS%3Adefault&limit=50';
/**
 * Unleash refuses new flags beyond 5000 by default (a resource limit, not a rate limit);
 * raised so that a fast create run cannot hit it.
 */
const FEATURE_FLAGS_LIMIT = '1000000';

/** Unleash with the backend token (`default:development.…`) its SDKs poll `/api/client/features` with. */
export interface UnleashTarget extends Target {
  backendToken: string;
}

/** Unleash 7.5.1 as its docker image runs it: its own process, its own database, defaults otherwise. */
export async function startUnleash(adminDatabaseUrl: string, log: (line: string) => void): Promise<UnleashTarget> {
  const entry = await ensureUnleashInstalled(log);
  const database: BenchDatabase = await createBenchDatabase(adminDatabaseUrl, 'unleash');
  let service: ServiceProcess | null = null;
  const stop = async () => {
    try {
      await service?.stop();
    } finally {
      await database.drop();
    }
  };
  try {
    const port = await freePort();
    const secret = randomBytes(24).toString('hex');
    const adminToken = `*:*.${secret}`;
    const backendToken = `default:development.${secret}`;
    const baseUrl = `http://127.0.0.1:${port}`;
    service = await spawnService({
      name: 'Unleash',
      command: process.execPath,
      args: [LAUNCHER],
      cwd: UNLEASH_DIR,
      env: {
        UNLEASH_SERVER_ENTRY: entry,
        BENCH_DB_HOST: database.host,
        BENCH_DB_PORT: String(database.port),
        BENCH_DB_USER: database.user,
        BENCH_DB_PASSWORD: database.password,
        BENCH_DB_NAME: database.name,
        BENCH_PORT: String(port),
        DATABASE_URL: '',
        NODE_ENV: 'production',
        INIT_ADMIN_API_TOKENS: adminToken,
        INIT_BACKEND_API_TOKENS: backendToken,
        SEND_TELEMETRY: 'false',
        CHECK_VERSION: 'false',
        UNLEASH_FEATURE_FLAGS_LIMIT: FEATURE_FLAGS_LIMIT,
      },
      readyUrl: `${baseUrl}/health`,
      readyTimeoutMs: 120_000,
    });
    const headers = { authorization: adminToken };
    // The admin token works and an anonymous call is refused.
    await expectStatus(401, 'GET', `${baseUrl}${SEARCH}`, {});
    await expectStatus(200, 'GET', `${baseUrl}${SEARCH}`, headers);
    return { ...unleashTarget(baseUrl, headers, { pid: service.pid, databaseName: database.name, output: service.output }, stop), backendToken };
  } catch (error) {
    await stop();
    throw error;
  }
}

function unleashTarget(
  baseUrl: string,
  headers: Record<string, string>,
  owner: { pid: number; databaseName: string; output: () => string },
  stop: () => Promise<void>,
): Target {
  const seededNames: string[] = [];
  let created = 0;
  let patched = 0;
  let seedCount = 0;
  const named = (body: unknown) => (typeof (body as { name?: unknown })?.name === 'string' ? null : 'the answer has no name');

  const plans: Record<Operation, () => OperationPlan> = {
    create: () => ({
      method: 'POST',
      next: () => {
        created += 1;
        return { path: FEATURES, body: JSON.stringify({ name: `bench-${created}`, type: 'release' }) };
      },
      check: named,
    }),
    retrieve: () => {
      const name = seededNames[0];
      return {
        method: 'GET',
        next: () => ({ path: `${FEATURES}/${name}` }),
        check: (body) => ((body as { name?: unknown })?.name === name ? null : `the answer is not flag ${name}`),
      };
    },
    list: () => ({
      method: 'GET',
      next: () => ({ path: SEARCH }),
      check: (body) => {
        const page = body as { features?: unknown; total?: unknown } | null;
        if (!page || !Array.isArray(page.features)) return 'the answer has no features array';
        if (page.features.length !== 50) return `the page holds ${page.features.length} flags, expected 50`;
        if (typeof page.total !== 'number' || page.total < seedCount) return `total is ${String(page.total)}, expected at least ${seedCount}`;
        return null;
      },
    }),
    patch: () => ({
      method: 'PATCH',
      next: () => {
        patched += 1;
        const name = seededNames[patched % seededNames.length];
        return {
          path: `${FEATURES}/${name}`,
          body: JSON.stringify([{ op: 'replace', path: '/description', value: `Patched by the benchmark ${patched}` }]),
        };
      },
      check: named,
    }),
  };

  return {
    name: 'Unleash',
    baseUrl,
    ...owner,
    headers,
    notes: {
      version: UNLEASH_VERSION,
      logLevel: 'warn',
      databasePoolMax: Number(process.env.DATABASE_POOL_MAX ?? 4),
      featureFlagsLimit: Number(FEATURE_FLAGS_LIMIT),
    },
    async seed(count) {
      for (let i = 0; i < count; i += 1) {
        const name = `seed-${i}`;
        const body = JSON.stringify({ name, type: 'release', description: `Seeded flag ${i}` });
        await expectStatus(201, 'POST', `${baseUrl}${FEATURES}`, headers, body);
        seededNames.push(name);
      }
      seedCount = count;
    },
    plan: (operation) => plans[operation](),
    stop,
  };
}
