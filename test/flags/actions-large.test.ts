import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { INLINE_PERSON_LIMIT } from '../../src/cohorts/calculation.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { and, cohortsUrl, createCohort, filtersOf, person, type Json } from '../cohorts/support.ts';
import { createFlag, flagsUrl } from './flag-client.ts';

const PERSONS = INLINE_PERSON_LIMIT + 4_000;

let t: TestApp;

before(async () => {
  t = await startTestApp();
  // Every third person is on the pro plan.
  await t.db.pool.query(
    `WITH made AS (
       INSERT INTO persons (project_id, properties)
       SELECT $1, jsonb_build_object('plan', CASE WHEN i % 3 = 0 THEN 'pro' ELSE 'free' END, 'i', i)
         FROM generate_series(1, $2) AS i
       RETURNING id, (properties->>'i')::int AS i
     )
     INSERT INTO person_distinct_ids (project_id, distinct_id, person_id) SELECT $1, 'big-' || i, id FROM made`,
    [t.projectId, PERSONS],
  );
});
after(async () => {
  await t.close();
});

async function settled(id: number): Promise<Json> {
  for (let i = 0; i < 600; i++) {
    const response = await t.request({ method: 'GET', url: `${cohortsUrl()}${id}/` });
    const cohort = response.json();
    if (!cohort.is_calculating) return cohort;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`cohort ${id} still calculating`);
}

test('a large project: the static cohort is answered at once and filled in the background', async () => {
  const flag = await createFlag(t, { key: 'big-pro', filters: { groups: [{ properties: [person('plan', 'pro')], rollout_percentage: 100 }] } });
  const response = await t.request({ method: 'POST', url: `${flagsUrl()}${flag.id}/create_static_cohort_for_flag/`, payload: {} });
  assert.equal(response.statusCode, 200, response.body);
  const { cohort } = response.json();
  assert.equal(cohort.is_calculating, true);
  const done = await settled(cohort.id);
  assert.equal(done.count, Math.floor(PERSONS / 3));
  assert.equal(done.errors_calculating, 0);
  assert.equal(done.version, 2);
  const { rows } = await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM cohort_people WHERE cohort_id = $1', [cohort.id]);
  assert.equal(rows[0].n, Math.floor(PERSONS / 3));
});

test('a large project: a dynamic cohort is counted in the background; its persons page through the engine', async () => {
  const cohort = await createCohort(t, { name: 'Big pro', filters: filtersOf(and(person('plan', 'pro'), person('i', '30000', 'gt'))) });
  assert.equal(cohort.is_calculating, true);
  assert.equal(cohort.count, null);
  const done = await settled(cohort.id);
  const expected = Math.floor(PERSONS / 3) - 10_000;
  assert.equal(done.count, expected);
  const page = await t.request({ method: 'GET', url: `${cohortsUrl()}${cohort.id}/persons/?limit=3&offset=10` });
  assert.equal(page.statusCode, 200, page.body);
  assert.deepEqual(page.json().results.map((p: Json) => p.distinct_ids[0]), ['big-30033', 'big-30036', 'big-30039']);
  assert.match(page.json().next, /offset=13/);
  assert.match(page.json().previous, /offset=7/);
});
