import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

/**
 * An install from before projects had environments: the dump was made by pg_dump from a database
 * migrated and filled by that release (scripts/make-pre-environments-dump.ts); the JSON beside it
 * holds what the dump keeps only hashed.
 */
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
const before72 = JSON.parse(readFileSync(path.join(FIXTURES, 'pre-environments.json'), 'utf8')) as {
  key: string;
  projects: { id: number; api_token: string; secret_api_token: string }[];
};

describe('an install from before environments migrates with every old URL and token working', () => {
  let db: TestDatabase;
  let app: FastifyInstance;
  const call = (options: InjectOptions & { bearer?: string }) =>
    app.inject({ ...options, headers: { authorization: `Bearer ${options.bearer ?? before72.key}`, ...options.headers } });
  const keys = (res: { json(): { results: { key: string }[] } }) => res.json().results.map((f) => f.key).sort();

  before(async () => {
    db = await createTestDatabase({ migrate: false });
    execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', db.url, '-f', path.join(FIXTURES, 'pre-environments.sql')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await migrate(db.pool);
    app = await buildApp({ pool: db.pool, databaseUrl: db.url });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await db?.drop();
  });

  test('each project became a project with one environment of the same id', async () => {
    const { rows } = await db.pool.query('SELECT id, project_group_id FROM projects ORDER BY id');
    assert.deepEqual(rows, [
      { id: 1, project_group_id: 1 },
      { id: 2, project_group_id: 2 },
    ]);
    for (const { id } of before72.projects) {
      const project = await call({ method: 'GET', url: `/api/projects/${id}/` });
      assert.equal(project.statusCode, 200, project.body);
      assert.equal(project.json().project_id, id);
      const environments = await call({ method: 'GET', url: `/api/projects/${id}/environments/` });
      assert.deepEqual(environments.json().results.map((e: { id: number }) => e.id), [id]);
    }
  });

  test('old URLs answer what they answered, and the environment URLs the same', async () => {
    for (const prefix of ['/api/projects', '/api/environments']) {
      assert.deepEqual(keys(await call({ method: 'GET', url: `${prefix}/1/feature_flags/` })), ['first-only', 'half']);
      assert.deepEqual(keys(await call({ method: 'GET', url: `${prefix}/2/feature_flags/` })), ['second-only']);
      const surveys = await call({ method: 'GET', url: `${prefix}/1/surveys/` });
      assert.equal(surveys.json().count, 1);
      const events = await call({ method: 'GET', url: `${prefix}/2/events/` });
      assert.deepEqual(events.json().results.map((e: { distinct_id: string }) => e.distinct_id), ['bob']);
    }
  });

  test('old project tokens and secret tokens still name their project', async () => {
    for (const [index, expected] of [['first-only', 'half'], ['second-only']].entries()) {
      const { api_token, secret_api_token } = before72.projects[index];
      const flags = await app.inject({ method: 'POST', url: '/flags/?v=2', payload: { api_key: api_token, distinct_id: 'someone' } });
      assert.equal(flags.statusCode, 200, flags.body);
      // A survey's own targeting flag is in its project's flags too.
      const own = (list: string[]) => list.filter((key) => !key.startsWith('survey-targeting-')).sort();
      assert.deepEqual(own(Object.keys(flags.json().flags)), expected);
      const definitions = await call({ method: 'GET', url: `/api/feature_flag/local_evaluation?token=${api_token}`, bearer: secret_api_token });
      assert.equal(definitions.statusCode, 200, definitions.body);
      assert.deepEqual(own(definitions.json().flags.map((f: { key: string }) => f.key)), expected);
    }
  });

  test('a new environment after the migration takes the next id; nothing is renumbered', async () => {
    const created = await call({ method: 'POST', url: '/api/projects/1/environments/', payload: { name: 'Staging' } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().id, 3);
    assert.equal(created.json().project_id, 1);
    const project = await call({ method: 'POST', url: '/api/projects/', payload: { name: 'Third' } });
    assert.equal(project.json().id, 4);
    assert.equal(project.json().project_id, 4);
  });
});
