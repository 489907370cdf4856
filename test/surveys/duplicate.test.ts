import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { foreignOrganization } from '../accounts/support.ts';
import { createSurvey, createUserFlag, getSurvey, keyWith, otherProject, surveysUrl, type Json } from './support.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const duplicateUrl = (id: unknown) => `${surveysUrl(t.projectId)}${id}/duplicate_to_projects/`;
const duplicate = (id: unknown, payload: Json, key?: string) => t.request({ method: 'POST', url: duplicateUrl(id), payload, key });

async function counts(projects: number[]): Promise<{ surveys: number; flags: number; activity: number }> {
  const q = async (sql: string) => (await t.db.pool.query(sql, [projects])).rows[0].n as number;
  return {
    surveys: await q('SELECT count(*)::int AS n FROM surveys WHERE project_id = ANY($1)'),
    flags: await q('SELECT count(*)::int AS n FROM feature_flags WHERE project_id = ANY($1)'),
    activity: await q('SELECT count(*)::int AS n FROM activity_log WHERE project_id = ANY($1)'),
  };
}

const richSource = () => ({
  name: `Source ${Math.random().toString(36).slice(2, 8)}`,
  description: 'Tell us',
  type: 'popover',
  questions: [
    { id: 'q-one', type: 'single_choice', question: 'Pick one', choices: ['a', 'b'] },
    { type: 'open', question: 'Why?' },
  ],
  appearance: { backgroundColor: '#123456' },
  conditions: { url: 'checkout', urlMatchType: 'icontains', linkedFlagVariant: 'any', events: { values: [{ name: 'paid' }] }, actions: { values: [] } },
  responses_limit: 50,
  iteration_count: 2,
  iteration_frequency_days: 30,
  schedule: 'recurring',
  enable_partial_responses: true,
  enable_iframe_embedding: true,
  translations: { fr: { name: 'Source FR' } },
  start_date: '2024-01-01T00:00:00Z',
  targeting_flag_filters: { groups: [{ properties: [{ key: 'email', value: '@x.com', operator: 'icontains', type: 'person' }], rollout_percentage: 50 }] },
  response_sampling_start_date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) + 'T00:00:00Z',
  response_sampling_interval_type: 'day',
  response_sampling_interval: 5,
  response_sampling_limit: 100,
});

describe('duplicate_to_projects', () => {
  test('copies the survey as a draft into every target, in one answer (200)', async () => {
    const linked = await createUserFlag(t, { key: `linked-${Math.random().toString(36).slice(2, 8)}` });
    const source = await createSurvey(t, { ...richSource(), linked_flag_id: linked.id });
    const a = await otherProject(t);
    const b = await otherProject(t);
    const response = await duplicate(source.id, { target_team_ids: [a, b, t.projectId] });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.count, 3);
    assert.deepEqual(body.created_surveys.map((c: Json) => c.team_id), [a, b, t.projectId]);
    for (const created of body.created_surveys as Json[]) {
      assert.deepEqual(Object.keys(created).sort(), ['name', 'survey_id', 'team_id']);
      assert.match(created.name, new RegExp(`^${source.name} \\(duplicated at \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\)$`));
      const copy = await getSurvey(t, created.survey_id, created.team_id);
      assert.equal(copy.name, created.name);
      assert.equal(copy.description, 'Tell us');
      assert.equal(copy.type, 'popover');
      assert.deepEqual(copy.appearance, { backgroundColor: '#123456' });
      assert.equal(copy.responses_limit, 50);
      assert.equal(copy.iteration_count, 2);
      assert.equal(copy.iteration_frequency_days, 30);
      assert.equal(copy.schedule, 'recurring');
      assert.equal(copy.enable_partial_responses, true);
      // questions: new ids
      const questions = copy.questions as Json[];
      assert.equal(questions.length, 2);
      assert.notEqual(questions[0].id, 'q-one');
      assert.notEqual(questions[1].id, (source.questions as Json[])[1].id);
      assert.equal(questions[0].question, 'Pick one');
      assert.deepEqual(copy.conditions, { url: 'checkout', urlMatchType: 'icontains' });
      // always a draft, nothing of the flags or sampling
      assert.equal(copy.start_date, null);
      assert.equal(copy.end_date, null);
      assert.equal(copy.archived, false);
      assert.equal(copy.iteration_start_dates, null);
      assert.equal(copy.linked_flag, null);
      assert.equal(copy.targeting_flag, null);
      assert.equal(copy.response_sampling_start_date, null);
      assert.equal(copy.response_sampling_daily_limits, null);
      assert.equal(copy.response_sampling_limit, null);
      assert.equal(copy.translations, null);
      assert.equal(copy.enable_iframe_embedding, false);
      assert.equal(copy.feature_flag_keys[3].value, null);
      // unlike PostHog's bulk_create: the copy has its internal targeting flag at once
      const internal = copy.internal_targeting_flag as Json;
      assert.ok(internal, 'internal targeting flag');
      assert.equal(internal.team_id, created.team_id);
      assert.equal(internal.active, false);
      assert.equal(internal.filters.groups[0].properties[0].key, `$survey_dismissed/${created.survey_id}/1`);
      // activity: created with source_survey_id
      const activity = await t.request({ method: 'GET', url: `${surveysUrl(created.team_id)}${created.survey_id}/activity/` });
      const entries = activity.json().results as Json[];
      assert.equal(entries.length, 1);
      assert.equal(entries[0].activity, 'created');
      assert.deepEqual(entries[0].detail.changes, [{ type: 'Survey', action: 'created', field: 'source_survey_id', before: null, after: source.id }]);
      assert.equal((copy.created_by as Json).email, 'admin@bellwether.local');
    }
  });

  test('target_project_ids is accepted as well', async () => {
    const source = await createSurvey(t);
    const a = await otherProject(t);
    const response = await duplicate(source.id, { target_project_ids: [a] });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().count, 1);
  });

  test('a missing, empty or malformed list is a 400', async () => {
    const source = await createSurvey(t);
    for (const payload of [{}, { target_team_ids: [] }, { target_team_ids: 'x' }, { target_team_ids: [1.5] }, { target_team_ids: [{}] }]) {
      const response = await duplicate(source.id, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.json().detail, 'target_team_ids must be a non-empty list of team IDs');
    }
  });

  test('a target listed twice is a 400 naming it; nothing is created', async () => {
    const source = await createSurvey(t);
    const a = await otherProject(t);
    const before = await counts([a]);
    const response = await duplicate(source.id, { target_team_ids: [a, a] });
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().detail, new RegExp(`Project ${a}\\b`));
    assert.deepEqual(await counts([a]), before);
  });

  test('a bad target among good ones: 400 naming it, nothing created anywhere', async () => {
    const source = await createSurvey(t);
    const a = await otherProject(t);
    const b = await otherProject(t);
    const foreign = await foreignOrganization(t);
    const all = [a, b, t.projectId, foreign.projectId];
    const before = await counts(all);
    for (const bad of [foreign.projectId, 999999]) {
      const response = await duplicate(source.id, { target_team_ids: [a, b, bad] });
      assert.equal(response.statusCode, 400, response.body);
      const body = response.json();
      assert.equal(body.type, 'validation_error');
      assert.match(body.detail, new RegExp(`Project ${bad}\\b`));
      assert.deepEqual(await counts(all), before);
    }
  });

  test('a key scoped to some projects may only duplicate into them', async () => {
    const source = await createSurvey(t);
    const a = await otherProject(t);
    const b = await otherProject(t);
    const scoped = await keyWith(t, ['survey:write'], { scoped_teams: [t.projectId, a] });
    const refused = await duplicate(source.id, { target_team_ids: [a, b] }, scoped);
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.json().detail, new RegExp(`Project ${b}\\b`));
    const fine = await duplicate(source.id, { target_team_ids: [a] }, scoped);
    assert.equal(fine.statusCode, 200, fine.body);
  });

  test('a copy failing after the first (its name taken in the second target): nothing created anywhere, no flags left', async () => {
    const source = await createSurvey(t, { name: `Clash ${Math.random().toString(36).slice(2, 8)}` });
    const a = await otherProject(t);
    const b = await otherProject(t);
    // The copy's name carries the time to the second: take the names of the next few seconds in b.
    const now = Date.now();
    for (let s = -1; s <= 10; s++) {
      const stamp = new Date(now + s * 1000).toISOString().slice(0, 19).replace('T', ' ');
      await createSurvey(t, { name: `${source.name} (duplicated at ${stamp})` }, b);
    }
    const before = await counts([a, b, t.projectId]);
    const response = await duplicate(source.id, { target_team_ids: [a, b] });
    assert.equal(response.statusCode, 400, response.body);
    const body = response.json();
    assert.match(body.detail, new RegExp(`^Project ${b}: `));
    assert.match(body.detail, /already a survey with this name/);
    assert.equal(body.attr, 'name');
    assert.equal(body.code, 'unique');
    assert.deepEqual(await counts([a, b, t.projectId]), before, 'no survey, flag or activity entry remains');
  });

  test('a database failure on the second copy: nothing created anywhere, the error names the target', async () => {
    const source = await createSurvey(t);
    const a = await otherProject(t);
    const b = await otherProject(t);
    await t.db.pool.query(`CREATE FUNCTION fail_in_${b}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.project_id = ${b} THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await t.db.pool.query(`CREATE TRIGGER fail_in_${b} BEFORE INSERT ON surveys FOR EACH ROW EXECUTE FUNCTION fail_in_${b}()`);
    try {
      const before = await counts([a, b, t.projectId]);
      const response = await duplicate(source.id, { target_team_ids: [a, b] });
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().detail, new RegExp(`^Project ${b}: `));
      assert.equal(response.json().attr, 'error');
      assert.deepEqual(await counts([a, b, t.projectId]), before);
      const list = await t.request({ method: 'GET', url: surveysUrl(a) });
      assert.equal(list.json().count, 0);
    } finally {
      await t.db.pool.query(`DROP TRIGGER fail_in_${b} ON surveys`);
    }
  });

  test('unknown source survey: 404; scope survey:write needed', async () => {
    const a = await otherProject(t);
    const missing = await duplicate('01890000-0000-7000-8000-000000000000', { target_team_ids: [a] });
    assert.equal(missing.statusCode, 404);
    const source = await createSurvey(t);
    const reader = await keyWith(t, ['survey:read']);
    const denied = await duplicate(source.id, { target_team_ids: [a] }, reader);
    assert.equal(denied.statusCode, 403);
    const get = await t.request({ method: 'GET', url: duplicateUrl(source.id) });
    assert.equal(get.statusCode, 405);
  });
});
