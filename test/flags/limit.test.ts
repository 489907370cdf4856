import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_LIVE_FLAGS_PER_PROJECT } from '../../src/flags/limit.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { minimalSurvey, surveysUrl } from '../surveys/support.ts';

let t: TestApp;
const flagsUrl = () => `/api/projects/${t.projectId}/feature_flags/`;
const FULL = {
  type: 'validation_error',
  code: 'max_flags',
  detail: `This project has ${MAX_LIVE_FLAGS_PER_PROJECT} feature flags, the most a project may have. Delete flags it no longer needs to make room.`,
  attr: null,
};

async function liveFlags(): Promise<number> {
  const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM feature_flags WHERE project_id = $1 AND NOT deleted', [t.projectId]);
  return rows[0].n;
}

const create = (key: string) => t.request({ method: 'POST', url: flagsUrl(), payload: { key, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } } });

before(async () => {
  t = await startTestApp();
  // One short of full, and a deleted flag (which does not count).
  await t.db.pool.query(
    `INSERT INTO feature_flags (project_id, key, filters)
     SELECT $1, 'seeded-' || n, '{"groups": [{"properties": [], "rollout_percentage": 100}]}' FROM generate_series(1, $2::int) AS n`,
    [t.projectId, MAX_LIVE_FLAGS_PER_PROJECT - 1],
  );
  await t.db.pool.query("INSERT INTO feature_flags (project_id, key, deleted) VALUES ($1, 'deleted-one', true)", [t.projectId]);
});
after(() => t.close());

describe('live flags per project are limited', () => {
  test('the last place is taken, then a create answers 400 max_flags and stores nothing', async () => {
    assert.equal((await create('the-last')).statusCode, 201);
    const refused = await create('one-too-many');
    assert.equal(refused.statusCode, 400, refused.body);
    assert.deepEqual(refused.json(), FULL);
    assert.equal(await liveFlags(), MAX_LIVE_FLAGS_PER_PROJECT);
  });

  test('restoring a deleted flag into a full project is refused; it stays deleted', async () => {
    const { rows } = await t.db.pool.query<{ id: number }>("SELECT id FROM feature_flags WHERE key = 'deleted-one'");
    const restore = await t.request({ method: 'PATCH', url: `${flagsUrl()}${rows[0].id}/`, payload: { deleted: false } });
    assert.equal(restore.statusCode, 400, restore.body);
    assert.deepEqual(restore.json(), FULL);
    const { rows: after } = await t.db.pool.query<{ deleted: boolean }>('SELECT deleted FROM feature_flags WHERE id = $1', [rows[0].id]);
    assert.equal(after[0].deleted, true);
  });

  test('a survey whose targeting flag would not fit is refused, and nothing is stored', async () => {
    const response = await t.request({
      method: 'POST',
      url: surveysUrl(t.projectId),
      payload: minimalSurvey({ targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 10 }] } }),
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.deepEqual(response.json(), FULL);
    const { rows } = await t.db.pool.query('SELECT 1 FROM surveys WHERE project_id = $1', [t.projectId]);
    assert.equal(rows.length, 0);
  });

  test('concurrent creates cannot both take a freed place', async () => {
    const { rows } = await t.db.pool.query<{ id: number }>("SELECT id FROM feature_flags WHERE key = 'seeded-1'");
    const deleted = await t.request({ method: 'PATCH', url: `${flagsUrl()}${rows[0].id}/`, payload: { deleted: true } });
    assert.equal(deleted.statusCode, 200, deleted.body);
    const answers = await Promise.all(['race-a', 'race-b', 'race-c'].map(create));
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 400, 400]);
    assert.equal(await liveFlags(), MAX_LIVE_FLAGS_PER_PROJECT);
  });
});
