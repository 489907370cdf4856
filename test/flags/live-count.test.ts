import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// flag_live_counts (migration 060) must equal the project's live flags whatever wrote them.
let t: TestApp;
const flagsUrl = () => `/api/projects/${t.projectId}/feature_flags/`;
const create = (key: string) => t.request({ method: 'POST', url: flagsUrl(), payload: { key, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } } });

async function kept(projectId = t.projectId): Promise<number | null> {
  const { rows } = await t.db.pool.query<{ live: number }>('SELECT live FROM flag_live_counts WHERE project_id = $1', [projectId]);
  return rows[0]?.live ?? null;
}
async function counted(projectId = t.projectId): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM feature_flags WHERE project_id = $1 AND NOT deleted', [projectId]);
  return rows[0].n;
}
async function assertKept(): Promise<void> {
  assert.equal(await kept(), await counted());
}

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

describe('the live flag count kept by PostgreSQL', () => {
  test('follows creates, deletes and restores through the API', async () => {
    const before = await counted();
    const a = (await create('live-a')).json() as { id: number };
    assert.equal((await create('live-b')).statusCode, 201);
    assert.equal(await kept(), before + 2);
    assert.equal((await t.request({ method: 'PATCH', url: `${flagsUrl()}${a.id}/`, payload: { deleted: true } })).statusCode, 200);
    assert.equal(await kept(), before + 1);
    assert.equal((await t.request({ method: 'PATCH', url: `${flagsUrl()}${a.id}/`, payload: { name: 'renamed while deleted' } })).statusCode, 200);
    assert.equal(await kept(), before + 1);
    assert.equal((await t.request({ method: 'PATCH', url: `${flagsUrl()}${a.id}/`, payload: { deleted: false } })).statusCode, 200);
    await assertKept();
  });

  test('a refused create (taken key) changes nothing', async () => {
    const before = await kept();
    assert.equal((await create('live-b')).statusCode, 400);
    assert.equal(await kept(), before);
  });

  test('follows plain SQL: bulk inserts, updates that leave liveness alone, hard deletes, deleted rows', async () => {
    await t.db.pool.query(
      `INSERT INTO feature_flags (project_id, key, deleted) SELECT $1, 'sql-' || n, n % 3 = 0 FROM generate_series(1, 30) AS n`,
      [t.projectId],
    );
    await assertKept();
    await t.db.pool.query("UPDATE feature_flags SET name = 'x', deleted = deleted WHERE project_id = $1 AND key LIKE 'sql-%'", [t.projectId]);
    await assertKept();
    await t.db.pool.query("UPDATE feature_flags SET deleted = NOT deleted WHERE project_id = $1 AND key LIKE 'sql-1%'", [t.projectId]);
    await assertKept();
    await t.db.pool.query("DELETE FROM feature_flags WHERE project_id = $1 AND key LIKE 'sql-2%'", [t.projectId]);
    await assertKept();
  });

  test('a rolled-back insert leaves the count as it was', async () => {
    const before = await kept();
    const client = await t.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("INSERT INTO feature_flags (project_id, key) VALUES ($1, 'rolled-back')", [t.projectId]);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    assert.equal(await kept(), before);
    await assertKept();
  });
});
