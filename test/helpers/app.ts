import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { generateSecret, PERSONAL_KEY_PREFIX } from '../../src/accounts/auth/keys.ts';
import { bootstrap } from '../../src/accounts/bootstrap.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  /** A personal API key with scope `*` for project 1's owner. */
  key: string;
  projectId: number;
  /** Sends a request with the `*` key unless `key` (or null for none) is given. */
  request(options: InjectOptions & { key?: string | null }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** `options`: settings of the app beyond its database (trustProxy, session limits…). */
export async function startTestApp(options: Omit<AppOptions, 'pool' | 'databaseUrl'> = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const key = generateSecret(PERSONAL_KEY_PREFIX);
  const { projectId } = await bootstrap(db.pool, key);
  const app = await buildApp({ ...options, pool: db.pool, databaseUrl: db.url });
  await app.ready();
  return {
    app,
    db,
    key,
    projectId,
    request({ key: requestKey, headers, ...options }) {
      const bearer = requestKey === undefined ? key : requestKey;
      return app.inject({
        ...options,
        headers: { ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), ...headers },
      });
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
