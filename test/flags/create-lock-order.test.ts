import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// A create bumps the project's change counter in its insert, then the insert's trigger moves the
// live-flag count; a soft delete moves the count first and bumps the counter at its end. Both must
// take the two rows in one order, or concurrent creates and deletes deadlock (and answer 503).
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

test('creates and soft deletes of one project running side by side all succeed', async () => {
  const url = `/api/projects/${t.projectId}/feature_flags/`;
  const ids: number[] = [];
  for (let i = 0; i < 48; i++) {
    const created = await t.request({ method: 'POST', url, payload: { key: `lock-order-seed-${i}` } });
    assert.equal(created.statusCode, 201);
    ids.push((created.json() as { id: number }).id);
  }
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      for (let i = 0; i < 6; i++) {
        const [created, deleted] = await Promise.all([
          t.request({ method: 'POST', url, payload: { key: `lock-order-${lane}-${i}` } }),
          t.request({ method: 'PATCH', url: `${url}${ids[lane * 6 + i]}/`, payload: { deleted: true } }),
        ]);
        statuses.push(created.statusCode, deleted.statusCode);
      }
    }),
  );
  assert.deepEqual(
    statuses.filter((status) => status !== 200 && status !== 201),
    [],
  );
  const { rows } = await t.db.pool.query<{ live: number; counted: number }>(
    `SELECT (SELECT live FROM flag_live_counts WHERE project_id = $1) AS live,
            (SELECT count(*)::int FROM feature_flags WHERE project_id = $1 AND NOT deleted) AS counted`,
    [t.projectId],
  );
  assert.equal(rows[0].live, rows[0].counted);
});
