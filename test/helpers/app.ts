import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { bootstrap } from '../../src/accounts/bootstrap.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface TestApp {
  /** The first instance (requests sent to it directly do not take turns). */
  app: FastifyInstance;
  /** Every instance on the database, each with its own pool, caches and change-notice listener. */
  apps: FastifyInstance[];
  db: TestDatabase;
  /** A personal API key with scope `*` for project 1's owner. */
  key: string;
  projectId: number;
  /**
   * Sends a request with the `*` key unless `key` (or null for none) is given; with several
   * instances, each request goes to the next one in turn, as a load balancer over several
   * processes would send it.
   */
  request(options: InjectOptions & { key?: string | null }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions extends Omit<AppOptions, 'pool' | 'databaseUrl'> {
  /** App instances sharing the one database (default: TEST_APPS, else 1). */
  instances?: number;
}

/** How many instances a test app runs when the test does not say: `TEST_APPS=2` runs the API tests over two. */
export function defaultInstances(): number {
  const configured = Number(process.env.TEST_APPS ?? '1');
  return Number.isInteger(configured) && configured >= 1 && configured <= 8 ? configured : 1;
}

/** `options`: settings of the app beyond its database (trustProxy, session limits…). */
export async function startTestApp({ instances = defaultInstances(), ...options }: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const key = generateSecret(PERSONAL_KEY_PREFIX);
  const { projectId } = await bootstrap(db.pool, key);
  const app = await buildApp({ ...options, pool: db.pool, databaseUrl: db.url });
  await app.ready();
  const apps = [app];
  const pools: Pool[] = [];
  while (apps.length < instances) {
    const pool = createPool(db.url, 4);
    pools.push(pool);
    const other = await buildApp({ ...options, pool, databaseUrl: db.url });
    await other.ready();
    apps.push(other);
  }
  let turn = 0;
  return {
    app,
    apps,
    db,
    key,
    projectId,
    request({ key: requestKey, headers, ...options }) {
      const bearer = requestKey === undefined ? key : requestKey;
      const target = apps[turn++ % apps.length];
      return target.inject({
        ...options,
        headers: { ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), ...headers },
      });
    },
    async close() {
      for (const instance of apps.slice(1)) await instance.close();
      for (const pool of pools) await pool.end();
      await app.close();
      await db.drop();
    },
  };
}
