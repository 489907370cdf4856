import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { FlagCache } from '../../src/flags/cache.ts';
import { UnitsOfWork } from '../../src/db/unit-of-work.ts';
import { ChangeBus } from '../../src/kernel/changes/bus.ts';
import { SurveyJobs } from '../../src/surveys/lifecycle/jobs.ts';
import type { JobLog } from '../../src/kernel/jobs.ts';
import { SURVEY_JOBS_LOCK } from '../../src/surveys/lifecycle/store.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createSurvey, getSurvey, type Json } from './support.ts';
import { eventually } from '../helpers/eventually.ts';
import { ChangeCounters } from '../../src/kernel/changes/counters.ts';

let t: TestApp;
let token: string;

before(async () => {
  t = await startTestApp();
  // Rounds run here only when a test asks, at the time it chooses.
  await t.app.surveyJobs.stop();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
});
after(async () => {
  await t.close();
});

const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);
const runAt = (iso: string) => t.app.surveyJobs.runOnce(at(iso));
/** A round's changes to one survey (other tests' surveys may be due at the same time). */
const changesAt = async (iso: string, surveyId: unknown) => (await runAt(iso)).changes.filter((c) => c.surveyId === surveyId);
const TARGETING = { groups: [{ properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }], rollout_percentage: 100 }] };

async function flagRow(id: unknown): Promise<{ active: boolean; filters: Json; version: number }> {
  const { rows } = await t.db.pool.query('SELECT active, filters, version FROM feature_flags WHERE id = $1', [id]);
  return rows[0];
}

async function jobEntries(surveyId: unknown): Promise<Json[]> {
  const { rows } = await t.db.pool.query(
    `SELECT activity, user_id, is_system, detail FROM activity_log
      WHERE scope = 'Survey' AND item_id = $1 AND activity = 'updated' ORDER BY created_at, id`,
    [surveyId],
  );
  return rows;
}

async function flagEntries(flagId: unknown): Promise<number> {
  const { rows } = await t.db.pool.query(`SELECT count(*)::int AS n FROM activity_log WHERE scope = 'FeatureFlag' AND item_id = $1`, [String(flagId)]);
  return rows[0].n;
}

async function sendResponses(surveyId: unknown, submissions: string[]): Promise<void> {
  const batch = submissions.map((submission, i) => ({
    event: 'survey sent',
    distinct_id: `respondent-${submission}`,
    uuid: randomUUID(),
    timestamp: new Date(Date.now() - 60_000 + i * 1000).toISOString(),
    properties: { $survey_id: surveyId, $survey_submission_id: submission, $survey_completed: true, '$survey_response_q-open': 'fine' },
  }));
  const response = await t.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: token, batch } });
  assert.equal(response.statusCode, 200, response.body);
}

const QUESTIONS = [{ id: 'q-open', type: 'open', question: 'Anything else?' }];

const internalFilters = (key: string) => ({
  groups: [
    {
      variant: '',
      rollout_percentage: 100,
      properties: [
        { key: `$survey_dismissed/${key}`, value: 'is_not_set', operator: 'is_not_set', type: 'person' },
        { key: `$survey_responded/${key}`, value: 'is_not_set', operator: 'is_not_set', type: 'person' },
      ],
      aggregation_group_type_index: null,
    },
  ],
  aggregation_group_type_index: null,
});

describe('update_survey_iteration', () => {
  test('moves to the iteration holding today, rewrites the internal flag, ends after the last one', async () => {
    const survey = await createSurvey(t, {
      questions: QUESTIONS,
      start_date: '2024-05-01T10:00:00Z',
      iteration_count: 3,
      iteration_frequency_days: 10,
      targeting_flag_filters: TARGETING,
    });
    const read = await getSurvey(t, survey.id);
    const internalId = (read.internal_targeting_flag as Json).id;
    const targetingId = (read.targeting_flag as Json).id;
    assert.equal(read.current_iteration, 1);
    assert.deepEqual((await flagRow(internalId)).filters, internalFilters(`${survey.id}/1`));

    // Day 0..10 after the first start (inclusive) is iteration 1: nothing to do.
    for (const now of ['2024-04-20T00:00:00Z', '2024-05-05T12:00:00Z', '2024-05-11T23:59:59Z']) {
      assert.deepEqual(await changesAt(now, survey.id), [], now);
    }
    assert.deepEqual(await jobEntries(survey.id), []);

    const moved = await changesAt('2024-05-12T00:30:00Z', survey.id);
    assert.deepEqual(moved.map((c) => [c.jobType, c.surveyId]), [['update_survey_iteration', survey.id]]);
    const second = await getSurvey(t, survey.id);
    assert.equal(second.current_iteration, 2);
    assert.equal(Date.parse(String(second.current_iteration_start_date)), Date.parse('2024-05-11T10:00:00Z'));
    assert.equal(second.end_date, null);
    assert.deepEqual((await flagRow(internalId)).filters, internalFilters(`${survey.id}/2`));
    assert.equal((await flagRow(internalId)).active, true);
    const [entry] = await jobEntries(survey.id);
    assert.equal(entry.user_id, null);
    assert.equal(entry.is_system, true);
    assert.deepEqual(entry.detail.trigger, {
      job_type: 'update_survey_iteration',
      payload: { current_iteration: 2, previous_iteration: 1, iteration_start_date: '2024-05-11T10:00:00.000Z' },
    });
    assert.deepEqual(entry.detail.changes, [
      { type: 'Survey', action: 'changed', field: 'current_iteration', before: 1, after: 2 },
      { type: 'Survey', action: 'changed', field: 'current_iteration_start_date', before: '2024-05-01T10:00:00.000Z', after: '2024-05-11T10:00:00.000Z' },
    ]);
    assert.equal(entry.detail.name, survey.name);

    assert.deepEqual(await changesAt('2024-05-13T00:00:00Z', survey.id), [], 'the same iteration again: nothing');
    assert.equal((await jobEntries(survey.id)).length, 1);

    // Straight to the third, skipping nothing in between that was due.
    await runAt('2024-05-25T00:00:00Z');
    assert.equal((await getSurvey(t, survey.id)).current_iteration, 3);
    assert.deepEqual((await flagRow(internalId)).filters, internalFilters(`${survey.id}/3`));

    // The last window ends 10 days after the last start (2024-05-31): on 2024-06-01 the survey ends.
    assert.deepEqual(await changesAt('2024-05-31T23:00:00Z', survey.id), []);
    assert.equal((await flagRow(targetingId)).active, true);
    const ended = await changesAt('2024-06-01T06:00:00Z', survey.id);
    assert.equal(ended.length, 1);
    const last = await getSurvey(t, survey.id);
    assert.equal(Date.parse(String(last.end_date)), Date.parse('2024-06-01T06:00:00Z'));
    assert.equal(last.current_iteration, 3);
    assert.equal((await flagRow(targetingId)).active, false, 'an ended survey switches its flags off, as a PATCH does');
    assert.equal((await flagRow(internalId)).active, false);
    const entries = await jobEntries(survey.id);
    assert.equal(entries.length, 3);
    assert.deepEqual(entries[2].detail.changes, [{ type: 'Survey', action: 'created', field: 'end_date', before: null, after: '2024-06-01T06:00:00.000Z' }]);
    assert.deepEqual(entries[2].detail.trigger, { job_type: 'update_survey_iteration', payload: { reason: 'iterations_completed', iteration_count: 3 } });
    assert.deepEqual(await changesAt('2024-06-02T00:00:00Z', survey.id), [], 'an ended survey is left alone');
  });

  test('a survey without an internal flag (a duplicate) gets one for the new iteration', async () => {
    const survey = await createSurvey(t, { questions: QUESTIONS, start_date: '2024-02-01T00:00:00Z', iteration_count: 2, iteration_frequency_days: 7 });
    await t.db.pool.query('UPDATE surveys SET internal_targeting_flag_id = NULL WHERE id = $1', [survey.id]);
    await runAt('2024-02-09T00:00:00Z');
    const { rows } = await t.db.pool.query('SELECT internal_targeting_flag_id AS id, current_iteration FROM surveys WHERE id = $1', [survey.id]);
    assert.equal(rows[0].current_iteration, 2);
    assert.ok(rows[0].id);
    const flag = await t.db.pool.query('SELECT key, active, filters, owned_by_survey FROM feature_flags WHERE id = $1', [rows[0].id]);
    assert.match(flag.rows[0].key, /^survey-targeting-[0-9a-f]{10}-custom$/);
    assert.equal(flag.rows[0].active, true);
    assert.equal(flag.rows[0].owned_by_survey, true);
    assert.deepEqual(flag.rows[0].filters, internalFilters(`${survey.id}/2`));
    const [entry] = await jobEntries(survey.id);
    assert.deepEqual(
      (entry.detail.changes as Json[]).map((c) => [c.field, c.action]),
      [['current_iteration', 'changed'], ['current_iteration_start_date', 'changed'], ['internal_targeting_flag_id', 'created']],
    );
  });

  test('drafts, stopped surveys and surveys without iterations are left alone', async () => {
    const draft = await createSurvey(t, { questions: QUESTIONS, iteration_count: 2, iteration_frequency_days: 5 });
    const stopped = await createSurvey(t, { questions: QUESTIONS, start_date: '2024-01-01T00:00:00Z', end_date: '2024-01-02T00:00:00Z', iteration_count: 2, iteration_frequency_days: 5 });
    const once = await createSurvey(t, { questions: QUESTIONS, start_date: '2024-01-01T00:00:00Z' });
    const report = await runAt('2024-01-08T00:00:00Z');
    assert.deepEqual(report.changes.filter((c) => [draft.id, stopped.id, once.id].includes(c.surveyId)), []);
    assert.equal((await getSurvey(t, stopped.id)).current_iteration, 1);
    assert.equal((await getSurvey(t, once.id)).end_date, null);
  });
});

describe('update_survey_adaptive_sampling', () => {
  test("the sampling flag follows today's rollout; the last day restarts the schedule", async () => {
    // The sampling start date may not be in the past: the schedule starts tomorrow (UTC) at 08:00.
    const tomorrow = Math.floor(Date.now() / DAY) * DAY + DAY;
    const day = (n: number, hour = 0) => new Date(tomorrow + n * DAY + hour * 3_600_000).toISOString();
    const dateOf = (n: number) => day(n).slice(0, 10);
    const survey = await createSurvey(t, {
      questions: QUESTIONS,
      start_date: day(-2),
      response_sampling_start_date: day(0, 8),
      response_sampling_interval_type: 'day',
      response_sampling_interval: 4,
      response_sampling_limit: 100,
    });
    const { rows } = await t.db.pool.query('SELECT internal_response_sampling_flag_id AS id FROM surveys WHERE id = $1', [survey.id]);
    const samplingId = rows[0].id;
    assert.ok(samplingId);
    const rollout = async () => ((await flagRow(samplingId)).filters.groups as Json[]).map((g) => g.rollout_percentage);
    assert.deepEqual(await rollout(), [100]);

    assert.deepEqual(await changesAt(day(-1, 12), survey.id), [], 'before the schedule: nothing');
    const day2 = await changesAt(day(1, 12), survey.id);
    assert.deepEqual(day2.map((c) => c.payload), [{ date: dateOf(1), rollout_percentage: 50, restarted: false }]);
    assert.deepEqual(await rollout(), [50]);
    const flagEntriesAfterDay2 = await flagEntries(samplingId);
    assert.deepEqual(await changesAt(day(1, 18), survey.id), [], 'same day again: nothing');
    assert.equal(await flagEntries(samplingId), flagEntriesAfterDay2);
    const [entry] = await jobEntries(survey.id);
    assert.deepEqual(entry.detail.changes, [{ type: 'Survey', action: 'changed', field: 'response_sampling_rollout_percentage', before: 100, after: 50 }]);
    assert.deepEqual(entry.detail.trigger, { job_type: 'update_survey_adaptive_sampling', payload: { date: dateOf(1), rollout_percentage: 50, restarted: false } });

    await runAt(day(2));
    assert.deepEqual(await rollout(), [75]);
    const lastDay = await changesAt(day(3, 1), survey.id);
    assert.deepEqual(lastDay.map((c) => c.payload), [{ date: dateOf(3), rollout_percentage: 100, restarted: true }]);
    assert.deepEqual(await rollout(), [100]);
    const restarted = await getSurvey(t, survey.id);
    assert.equal(restarted.response_sampling_start_date, day(4, 8));
    const schedule = JSON.parse(String(restarted.response_sampling_daily_limits)) as Json[];
    assert.deepEqual(
      schedule.map((d) => [d.date, d.daily_response_limit, d.rollout_percentage]),
      [
        [day(4, 8), 25, 25],
        [day(5, 8), 50, 50],
        [day(6, 8), 75, 75],
        [day(7, 8), 100, 100],
      ],
    );
    const restartEntry = (await jobEntries(survey.id)).at(-1)!;
    assert.deepEqual(
      (restartEntry.detail.changes as Json[]).map((c) => c.field),
      ['response_sampling_start_date', 'response_sampling_daily_limits', 'response_sampling_rollout_percentage'],
    );
    assert.deepEqual(await changesAt(day(3, 20), survey.id), [], 'restarted: nothing more today');
    await runAt(day(4, 9));
    assert.deepEqual(await rollout(), [25]);
    assert.equal((await jobEntries(survey.id)).length, 4);
  });
});

describe('stop_surveys_reached_target', () => {
  test('stops at the limit with de-duplicated counting, clears the limit and switches the flags off', async () => {
    const survey = await createSurvey(t, {
      questions: QUESTIONS,
      start_date: new Date(Date.now() - DAY).toISOString(),
      responses_limit: 3,
      targeting_flag_filters: TARGETING,
    });
    const draft = await createSurvey(t, { questions: QUESTIONS, responses_limit: 1 });
    const read = await getSurvey(t, survey.id);
    const targetingId = (read.targeting_flag as Json).id;
    const internalId = (read.internal_targeting_flag as Json).id;
    assert.equal((await flagRow(targetingId)).active, true);

    // Three events, two submissions: 2 responses.
    await sendResponses(survey.id, ['s1', 's1', 's2']);
    await sendResponses(draft.id, ['d1', 'd2']);
    assert.deepEqual((await t.app.surveyJobs.runOnce()).changes.filter((c) => [survey.id, draft.id].includes(c.surveyId)), []);
    assert.equal((await getSurvey(t, survey.id)).end_date, null);

    await sendResponses(survey.id, ['s3']);
    const now = new Date();
    const report = await t.app.surveyJobs.runOnce(now);
    assert.deepEqual(report.changes.filter((c) => [survey.id, draft.id].includes(c.surveyId)).map((c) => [c.jobType, c.surveyId, c.payload]), [
      ['stop_surveys_reached_target', survey.id, { reason: 'responses_limit_reached', responses_limit: 3 }],
    ]);
    const stopped = await getSurvey(t, survey.id);
    assert.equal(Date.parse(String(stopped.end_date)), now.getTime());
    assert.equal(stopped.responses_limit, null);
    assert.equal((await flagRow(targetingId)).active, false);
    assert.equal((await flagRow(internalId)).active, false);
    const [entry] = await jobEntries(survey.id);
    assert.equal(entry.user_id, null);
    assert.deepEqual(entry.detail.trigger, { job_type: 'stop_surveys_reached_target', payload: { reason: 'responses_limit_reached', responses_limit: 3 } });
    assert.deepEqual(entry.detail.changes, [
      { type: 'Survey', action: 'created', field: 'end_date', before: null, after: now.toISOString() },
      { type: 'Survey', action: 'deleted', field: 'responses_limit', before: 3, after: null },
    ]);
    assert.equal((await getSurvey(t, draft.id)).end_date, null, 'a draft is never stopped');
    assert.deepEqual((await t.app.surveyJobs.runOnce()).changes.filter((c) => [survey.id, draft.id].includes(c.surveyId)), []);
    assert.equal((await jobEntries(survey.id)).length, 1);
  });
});

describe('several processes', () => {
  let second: Awaited<ReturnType<typeof buildApp>>;
  let secondPool: Pool;
  before(async () => {
    secondPool = createPool(t.db.url, 4);
    second = await buildApp({ pool: secondPool, databaseUrl: t.db.url, surveyJobsIntervalMs: 0 });
    await second.ready();
  });
  after(async () => {
    await second.close();
    await secondPool.end();
  });

  test('a round is skipped while another process holds the lock', async () => {
    const survey = await createSurvey(t, { questions: QUESTIONS, start_date: '2023-03-01T00:00:00Z', iteration_count: 2, iteration_frequency_days: 7 });
    const holder = await t.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [...SURVEY_JOBS_LOCK]);
      assert.deepEqual(await second.surveyJobs.runOnce(at('2023-03-09T00:00:00Z')), { skipped: true, changes: [] });
      assert.equal((await getSurvey(t, survey.id)).current_iteration, 1);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    const report = await second.surveyJobs.runOnce(at('2023-03-09T00:00:00Z'));
    assert.equal(report.skipped, false);
    assert.deepEqual(report.changes.map((c) => c.surveyId), [survey.id]);
    assert.equal((await getSurvey(t, survey.id)).current_iteration, 2);
  });

  test('two apps running rounds at once make each change exactly once', async () => {
    const surveys: Json[] = [];
    for (let i = 0; i < 4; i++) {
      surveys.push(await createSurvey(t, { questions: QUESTIONS, start_date: '2023-06-01T00:00:00Z', iteration_count: 3, iteration_frequency_days: 5 }));
    }
    const now = at('2023-06-07T00:00:00Z');
    const reports = await Promise.all([
      t.app.surveyJobs.runOnce(now),
      second.surveyJobs.runOnce(now),
      t.app.surveyJobs.runOnce(now),
      second.surveyJobs.runOnce(now),
    ]);
    const changed = reports.flatMap((r) => r.changes.map((c) => c.surveyId)).filter((id) => surveys.some((s) => s.id === id));
    assert.deepEqual([...changed].sort(), surveys.map((s) => String(s.id)).sort());
    for (const survey of surveys) {
      assert.equal((await getSurvey(t, survey.id)).current_iteration, 2);
      assert.equal((await jobEntries(survey.id)).length, 1, 'one activity entry');
    }
  });
});

describe('the timer', () => {
  test('runs rounds in the background, logs each change and errors, never throws; stop waits', async () => {
    const lines: Array<[string, Json, string]> = [];
    const log = {
      info: (obj: Json, msg: string) => void lines.push(['info', obj, msg]),
      error: (obj: Json, msg: string) => void lines.push(['error', obj, msg]),
    } as unknown as JobLog;
    const bus = new ChangeBus(null);
    const deps = { pool: t.db.pool, units: new UnitsOfWork(t.db.pool), bus, flagCache: new FlagCache(t.db.pool, bus, new ChangeCounters(t.db.pool)) };
    // Started 12 days ago, every 10 days: iteration 2 is due now.
    const survey = await createSurvey(t, { questions: QUESTIONS, start_date: new Date(Date.now() - 12 * DAY).toISOString(), iteration_count: 3, iteration_frequency_days: 10 });
    const jobs = new SurveyJobs(deps, { log, intervalMs: 20 });
    jobs.start();
    await eventually('an info line from the jobs', async () => lines.some(([level]) => level === 'info'));
    await jobs.stop();
    const info = lines.find(([level, obj]) => level === 'info' && obj.surveyId === survey.id);
    assert.ok(info, JSON.stringify(lines));
    assert.equal(info[2], 'survey moved to iteration 2');
    assert.equal(info[1].job, 'update_survey_iteration');
    assert.equal((await getSurvey(t, survey.id)).current_iteration, 2);

    lines.length = 0;
    const broken = { connect: async () => Promise.reject(new Error('database down')) } as unknown as Pool;
    const failing = new SurveyJobs({ ...deps, pool: broken, units: new UnitsOfWork(broken) }, { log, intervalMs: 10 });
    failing.start();
    await eventually('an error line from the jobs', async () => lines.some(([level]) => level === 'error'), undefined, { intervalMs: 10 });
    await failing.stop();
    const error = lines.find(([level]) => level === 'error');
    assert.ok(error);
    assert.equal(error[2], 'survey jobs round failed');
    await assert.rejects(failing.runOnce(), /database down/, 'runOnce itself reports the error to its caller');
  });
});
