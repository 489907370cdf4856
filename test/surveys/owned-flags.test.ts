import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, createCohort, filtersOf } from '../cohorts/support.ts';
import { postFlags, startSdkApp, type SdkTestApp } from '../sdk/support.ts';
import {
  assertValidation,
  createSurvey,
  createUserFlag,
  getFlagById,
  getSurvey,
  minimalSurvey,
  otherProject,
  patchSurvey,
  surveysUrl,
  type Json,
} from './support.ts';

let t: SdkTestApp;
before(async () => {
  t = await startSdkApp();
});
after(async () => {
  await t.close();
});

const emailContains = (value: string) => ({
  groups: [{ properties: [{ key: 'email', value, operator: 'icontains', type: 'person' }], rollout_percentage: 100 }],
});

async function patchOk(id: unknown, body: Json): Promise<Json> {
  const response = await patchSurvey(t, id, body);
  assert.equal(response.statusCode, 200, response.body);
  return response.json();
}

async function flagList(): Promise<Json[]> {
  const response = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/?limit=1000` });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().results;
}

async function flagsOf(surveyId: unknown): Promise<{ targeting: Json | null; internal: Json | null; sampling: Json | null }> {
  const survey = await getSurvey(t, surveyId);
  const { rows } = await t.db.pool.query('SELECT internal_response_sampling_flag_id FROM surveys WHERE id = $1', [surveyId]);
  const samplingId = rows[0].internal_response_sampling_flag_id;
  return {
    targeting: survey.targeting_flag,
    internal: survey.internal_targeting_flag,
    sampling: samplingId === null ? null : await getFlagById(t, samplingId),
  };
}

describe('the targeting flag', () => {
  test('created from targeting_flag_filters: key, name, creation context, owned, normalised filters, hidden from the flag list', async () => {
    const survey = await createSurvey(t, { name: 'Targeted', targeting_flag_filters: emailContains('@example.com') });
    const flag = survey.targeting_flag as Json;
    assert.match(String(flag.key), /^survey-targeting-[0-9a-f]{10}$/);
    assert.equal(flag.name, 'Targeting flag for survey Targeted');
    assert.equal(survey.targeting_flag_id, flag.id);
    assert.deepEqual(flag.filters, {
      groups: [
        {
          properties: [{ key: 'email', value: '@example.com', operator: 'icontains', type: 'person' }],
          rollout_percentage: 100,
          aggregation_group_type_index: null,
        },
      ],
      aggregation_group_type_index: null,
    });
    assert.deepEqual(survey.targeting_flag_filters, flag.filters);
    for (const key of ['id', 'team_id', 'name', 'key', 'filters', 'deleted', 'active', 'ensure_experience_continuity', 'has_encrypted_payloads', 'version', 'evaluation_runtime', 'bucketing_identifier', 'evaluation_tags']) {
      assert.ok(key in flag, `flag summary has ${key}`);
    }
    assert.equal(flag.team_id, t.projectId);
    assert.equal(flag.active, false, 'a draft survey: inactive');
    const stored = await getFlagById(t, flag.id);
    assert.equal(stored.creation_context, 'surveys');
    const { rows } = await t.db.pool.query('SELECT owned_by_survey FROM feature_flags WHERE id = $1', [flag.id]);
    assert.equal(rows[0].owned_by_survey, true);
    const listed = await flagList();
    assert.ok(!listed.some((f) => f.id === flag.id), 'owned flags are not in the flag list');
    assert.ok(!listed.some((f) => f.id === (survey.internal_targeting_flag as Json).id));
  });

  test('created active when the survey is launched in the same POST', async () => {
    const survey = await createSurvey(t, { start_date: '2024-01-01T00:00:00Z', targeting_flag_filters: emailContains('@launched.com') });
    assert.equal((survey.targeting_flag as Json).active, true);
    assert.equal((survey.internal_targeting_flag as Json).active, true);
  });

  test('empty or null targeting_flag_filters create no flag', async () => {
    for (const filters of [null, {}]) {
      const survey = await createSurvey(t, { targeting_flag_filters: filters });
      assert.equal(survey.targeting_flag, null);
    }
  });

  test('the filters go through flag validation; a behavioural cohort is refused in survey words', async () => {
    const bad = await t.request({
      method: 'POST',
      url: surveysUrl(t.projectId),
      payload: minimalSurvey({ targeting_flag_filters: { groups: [{ properties: [{ key: 'email', value: 'x', operator: 'no_such_operator', type: 'person' }], rollout_percentage: 50 }] } }),
    });
    assert.equal(bad.statusCode, 400, bad.body);
    const cohort = await createCohort(t, {
      name: 'Did purchase',
      filters: filtersOf(and({ type: 'behavioral', key: 'purchase', value: 'performed_event', event_type: 'events', time_value: 30, time_interval: 'day' })),
    });
    const before = (await t.db.pool.query('SELECT count(*)::int AS n FROM feature_flags')).rows[0].n;
    const refused = await t.request({
      method: 'POST',
      url: surveysUrl(t.projectId),
      payload: minimalSurvey({ targeting_flag_filters: { groups: [{ properties: [{ key: 'id', value: cohort.id, type: 'cohort' }], rollout_percentage: 50 }] } }),
    });
    assertValidation(refused, "Cohort 'Did purchase' with filters on events cannot be used in surveys.", null, 'behavioral_cohort_found');
    const afterCount = (await t.db.pool.query('SELECT count(*)::int AS n FROM feature_flags')).rows[0].n;
    assert.equal(afterCount, before, 'no flag left behind');
  });

  test('PATCH merges new filters over the old ones and logs the change', async () => {
    const survey = await createSurvey(t, { targeting_flag_filters: { ...emailContains('@one.com'), payloads: {} } });
    const flagId = (survey.targeting_flag as Json).id;
    const patched = await patchOk(survey.id, { targeting_flag_filters: emailContains('@two.com') });
    assert.equal((patched.targeting_flag as Json).id, flagId, 'the same flag');
    const stored = await getFlagById(t, flagId);
    assert.equal(stored.filters.groups[0].properties[0].value, '@two.com');
    assert.ok('payloads' in stored.filters, 'keys not sent are kept ({...old, ...new})');
    assert.equal(stored.version, 2);
    const activity = await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${survey.id}/activity/` });
    const change = (activity.json().results[0].detail.changes as Json[]).find((c) => c.field === 'targeting_flag_filters')!;
    assert.equal(change.action, 'changed');
    assert.equal(change.before.groups[0].properties[0].value, '@one.com');
    assert.deepEqual(change.after, emailContains('@two.com'));
  });

  test('PATCH creates the flag when there is none (active if the survey runs), and logs it', async () => {
    const survey = await createSurvey(t, { start_date: '2024-01-01T00:00:00Z' });
    const patched = await patchOk(survey.id, { targeting_flag_filters: emailContains('@late.com') });
    const flag = patched.targeting_flag as Json;
    assert.ok(flag);
    assert.equal(flag.active, true);
    const activity = await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${survey.id}/activity/` });
    const change = (activity.json().results[0].detail.changes as Json[]).find((c) => c.field === 'targeting_flag_filters')!;
    assert.equal(change.action, 'created');
    assert.deepEqual(change.after, emailContains('@late.com'));
  });

  test('sending null (or leaving the filters out) does not delete the flag', async () => {
    const survey = await createSurvey(t, { targeting_flag_filters: emailContains('@keep.com') });
    const flagId = (survey.targeting_flag as Json).id;
    assert.equal(((await patchOk(survey.id, { targeting_flag_filters: null })).targeting_flag as Json).id, flagId);
    assert.equal(((await patchOk(survey.id, { description: 'x' })).targeting_flag as Json).id, flagId);
    assert.equal(((await patchOk(survey.id, { targeting_flag_id: null })).targeting_flag as Json).id, flagId);
  });

  test('remove_targeting_flag soft-deletes and unlinks the flag, with the activity change', async () => {
    const survey = await createSurvey(t, { targeting_flag_filters: emailContains('@gone.com') });
    const flag = survey.targeting_flag as Json;
    const patched = await patchOk(survey.id, { remove_targeting_flag: true });
    assert.equal(patched.targeting_flag, null);
    assert.equal(patched.targeting_flag_id, null);
    assert.equal(patched.remove_targeting_flag, true);
    const stored = await getFlagById(t, flag.id);
    assert.equal(stored.deleted, true, 'readable by id with deleted: true');
    assert.ok(!(await flagList()).some((f) => f.id === flag.id));
    const read = await getSurvey(t, survey.id);
    assert.equal(read.feature_flag_keys[1].value, null);
    const activity = await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${survey.id}/activity/` });
    const change = (activity.json().results[0].detail.changes as Json[]).find((c) => c.field === 'targeting_flag')!;
    assert.equal(change.type, 'Survey');
    assert.equal(change.action, 'deleted');
    assert.equal(change.before.id, flag.id);
    assert.equal(change.before.key, flag.key);
    assert.equal(change.before.deleted, false, 'the flag as it was');
    assert.equal(change.after, null);
    // New filters afterwards make a new flag.
    const again = await patchOk(survey.id, { targeting_flag_filters: emailContains('@back.com') });
    assert.notEqual((again.targeting_flag as Json).id, flag.id);
  });

  test('targeting_flag_id attaches an existing flag of the project; another project\'s flag is refused', async () => {
    const mine = await createUserFlag(t, { key: 'attach-me', filters: emailContains('@mine.com') });
    const survey = await createSurvey(t, { targeting_flag_id: mine.id });
    assert.equal((survey.targeting_flag as Json).id, mine.id);
    assert.equal(survey.targeting_flag_id, mine.id);
    const project = await otherProject(t);
    const foreign = await createUserFlag(t, { key: 'foreign-flag' }, project);
    const refused = await t.request({ method: 'POST', url: surveysUrl(t.projectId), payload: minimalSurvey({ targeting_flag_id: foreign.id }) });
    assertValidation(refused, 'Targeting Feature Flag with this ID does not exist', null);
    const other = await createSurvey(t);
    const patchRefused = await patchSurvey(t, other.id, { targeting_flag_id: foreign.id });
    assertValidation(patchRefused, 'Targeting Feature Flag with this ID does not exist', null);
  });
});

describe('replacing the targeting flag', () => {
  test('attaching another flag soft-deletes the owned one it replaces; an attached user flag is never marked owned', async () => {
    const survey = await createSurvey(t, { targeting_flag_filters: emailContains('@replaced.com') });
    const owned = (survey.targeting_flag as Json).id;
    const mine = await createUserFlag(t, { key: 'replacement-flag', filters: emailContains('@mine.com') });
    const patched = await patchOk(survey.id, { targeting_flag_id: mine.id });
    assert.equal((patched.targeting_flag as Json).id, mine.id);
    assert.equal((await getFlagById(t, owned)).deleted, true);
    assert.ok((await flagList()).some((f) => f.id === mine.id), 'the user flag stays in the flag list');
  });
});

describe('the internal targeting flag', () => {
  test('one group: not dismissed and not responded, with the survey id', async () => {
    const survey = await createSurvey(t, { name: 'Internal' });
    const flag = survey.internal_targeting_flag as Json;
    assert.match(String(flag.key), /^survey-targeting-[0-9a-f]{10}-custom$/);
    assert.equal(flag.name, 'Targeting flag for survey Internal');
    assert.deepEqual(flag.filters, {
      groups: [
        {
          variant: '',
          rollout_percentage: 100,
          properties: [
            { key: `$survey_dismissed/${survey.id}`, value: 'is_not_set', operator: 'is_not_set', type: 'person' },
            { key: `$survey_responded/${survey.id}`, value: 'is_not_set', operator: 'is_not_set', type: 'person' },
          ],
          aggregation_group_type_index: null,
        },
      ],
      aggregation_group_type_index: null,
    });
  });

  test('a wait period gives two groups; iterations put the iteration in the key; a PATCH rewrites them', async () => {
    const survey = await createSurvey(t, {
      start_date: '2024-01-01T00:00:00Z',
      iteration_count: 3,
      iteration_frequency_days: 7,
      conditions: { seenSurveyWaitPeriodInDays: 14 },
    });
    const groups = (survey.internal_targeting_flag as Json).filters.groups as Json[];
    assert.equal(groups.length, 2);
    const base = [
      { key: `$survey_dismissed/${survey.id}/1`, value: 'is_not_set', operator: 'is_not_set', type: 'person' },
      { key: `$survey_responded/${survey.id}/1`, value: 'is_not_set', operator: 'is_not_set', type: 'person' },
    ];
    assert.deepEqual(groups[0].properties, [...base, { key: '$last_seen_survey_date', value: 'is_not_set', operator: 'is_not_set', type: 'person' }]);
    assert.deepEqual(groups[1].properties, [...base, { key: '$last_seen_survey_date', value: '14d', operator: 'is_date_before', type: 'person' }]);
    const internalId = (survey.internal_targeting_flag as Json).id;
    const patched = await patchOk(survey.id, { conditions: {}, iteration_count: 0 });
    const flag = patched.internal_targeting_flag as Json;
    assert.equal(flag.id, internalId, 'the same flag, rewritten');
    assert.equal(flag.filters.groups.length, 1);
    assert.equal(flag.filters.groups[0].properties[0].key, `$survey_dismissed/${survey.id}`);
  });
});

describe('the response-sampling flag', () => {
  const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) + 'T00:00:00Z';
  const sampling = () => ({ response_sampling_start_date: tomorrow(), response_sampling_interval_type: 'day', response_sampling_interval: 5, response_sampling_limit: 100 });

  test('created when daily limits appear, once; exposed only as feature_flag_keys[3]', async () => {
    const survey = await createSurvey(t);
    assert.equal((await flagsOf(survey.id)).sampling, null);
    await patchOk(survey.id, sampling());
    const first = (await flagsOf(survey.id)).sampling!;
    assert.match(String(first.key), /^survey-targeting-[0-9a-f]{10}-sampling$/);
    assert.deepEqual(first.filters.groups.map((g: Json) => [g.rollout_percentage, g.properties]), [[100, []]]);
    assert.equal(first.active, false, 'active = bool(start_date) at creation');
    assert.equal(first.creation_context, 'surveys');
    const read = await getSurvey(t, survey.id);
    assert.equal(read.feature_flag_keys[3].value, first.key);
    await patchOk(survey.id, { ...sampling(), response_sampling_limit: 200 });
    assert.equal((await flagsOf(survey.id)).sampling!.id, first.id, 'not created twice');
  });

  test('created on POST, active when the survey has a start date', async () => {
    const survey = await createSurvey(t, { ...sampling(), start_date: '2024-01-01T00:00:00Z' });
    const flag = (await flagsOf(survey.id)).sampling!;
    assert.equal(flag.active, true);
  });
});

describe('launch, stop, resume, archive', () => {
  test('the targeting and internal flags follow start_date && !end_date && !archived; the sampling flag does not', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) + 'T00:00:00Z';
    const survey = await createSurvey(t, {
      targeting_flag_filters: emailContains('@lifecycle.com'),
      response_sampling_start_date: tomorrow,
      response_sampling_interval_type: 'day',
      response_sampling_interval: 5,
      response_sampling_limit: 100,
    });
    const state = async () => {
      const flags = await flagsOf(survey.id);
      return [flags.targeting!.active, flags.internal!.active, flags.sampling!.active];
    };
    assert.deepEqual(await state(), [false, false, false], 'draft');
    await patchOk(survey.id, { start_date: '2024-01-01T00:00:00Z' });
    assert.deepEqual(await state(), [true, true, false], 'launched');
    await patchOk(survey.id, { end_date: new Date(Date.now() + 7 * 86_400_000).toISOString() });
    assert.deepEqual(await state(), [false, false, false], 'stopped, even with a future end date');
    await patchOk(survey.id, { end_date: null });
    assert.deepEqual(await state(), [true, true, false], 'resumed');
    await patchOk(survey.id, { archived: true });
    assert.deepEqual(await state(), [false, false, false], 'archived');
    await patchOk(survey.id, { archived: false });
    assert.deepEqual(await state(), [true, true, false], 'unarchived while running');
    await patchOk(survey.id, { end_date: '2024-02-01T00:00:00Z', archived: true });
    await patchOk(survey.id, { archived: false });
    assert.deepEqual(await state(), [false, false, false], 'unarchiving a stopped survey keeps the flags off');
    const flags = await flagsOf(survey.id);
    assert.equal(flags.targeting!.deleted, false, 'never deleted by archive or stop');
    assert.equal(flags.internal!.deleted, false);
  });

  test('an attached flag follows the survey too', async () => {
    const mine = await createUserFlag(t, { key: 'attached-lifecycle', filters: emailContains('@a.com') });
    const survey = await createSurvey(t, { targeting_flag_id: mine.id });
    assert.equal((await getFlagById(t, mine.id)).active, false);
    await patchOk(survey.id, { start_date: '2024-01-01T00:00:00Z' });
    assert.equal((await getFlagById(t, mine.id)).active, true);
  });

  test('a PATCH that changes nothing about a flag does not write it', async () => {
    const survey = await createSurvey(t, { targeting_flag_filters: emailContains('@quiet.com') });
    const before = (survey.targeting_flag as Json).version;
    await patchOk(survey.id, { description: 'no flag change' });
    const flags = await flagsOf(survey.id);
    assert.equal(flags.targeting!.version, before);
    assert.equal(flags.internal!.version, 1);
  });
});

describe('delete', () => {
  test('soft-deletes the targeting, internal and sampling flags and keeps the linked flag', async () => {
    const linked = await createUserFlag(t, { key: 'linked-kept', filters: emailContains('@linked.com') });
    const survey = await createSurvey(t, {
      linked_flag_id: linked.id,
      targeting_flag_filters: emailContains('@deleted.com'),
      response_sampling_start_date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) + 'T00:00:00Z',
      response_sampling_interval_type: 'day',
      response_sampling_interval: 5,
      response_sampling_limit: 100,
    });
    assert.equal((survey.linked_flag as Json).id, linked.id);
    const read = await getSurvey(t, survey.id);
    assert.equal(read.linked_flag_id, linked.id);
    assert.equal(read.feature_flag_keys[0].value, 'linked-kept');
    const flags = await flagsOf(survey.id);
    const response = await t.request({ method: 'DELETE', url: `${surveysUrl(t.projectId)}${survey.id}/` });
    assert.equal(response.statusCode, 204);
    for (const flag of [flags.targeting!, flags.internal!, flags.sampling!]) {
      const stored = await getFlagById(t, flag.id);
      assert.equal(stored.deleted, true, `${flag.key} soft-deleted`);
    }
    const kept = await getFlagById(t, linked.id);
    assert.equal(kept.deleted, false);
    assert.equal(kept.version, linked.version, 'the linked flag is not touched');
    assert.ok((await flagList()).some((f) => f.id === linked.id));
  });
});

describe('evaluation (the SDK endpoint)', () => {
  test('the targeting flag answers in /flags?v=2 for a matching person once the survey runs', async () => {
    const survey = await createSurvey(t, { targeting_flag_filters: emailContains('@sdk.example') });
    const key = (survey.targeting_flag as Json).key;
    const internalKey = (survey.internal_targeting_flag as Json).key;
    const ask = async (email: string) => {
      const response = await postFlags(t, { distinct_id: `person-${email}`, person_properties: { email } });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().flags as Json;
    };
    const draft = await ask('ann@sdk.example');
    assert.equal(draft[key]?.enabled ?? false, false, 'draft: off');
    await patchOk(survey.id, { start_date: '2024-01-01T00:00:00Z' });
    const running = await ask('ann@sdk.example');
    assert.equal(running[key].enabled, true);
    assert.equal(running[internalKey].enabled, true, 'not dismissed, not responded');
    const other = await ask('bob@elsewhere.example');
    assert.equal(other[key].enabled, false);
    const onlySurveys = await postFlags(t, { distinct_id: 'x', person_properties: { email: 'x@sdk.example' }, only_evaluate_survey_feature_flags: true });
    const keys = Object.keys(onlySurveys.json().flags);
    assert.ok(keys.includes(key), keys.join());
    await patchOk(survey.id, { archived: true });
    const archived = await ask('ann@sdk.example');
    assert.equal(archived[key].enabled, false);
  });
});

describe('flag activity', () => {
  test('owned flags get their own activity entries (created, updated)', async () => {
    const survey = await createSurvey(t, { targeting_flag_filters: emailContains('@log.com') });
    const flagId = (survey.targeting_flag as Json).id;
    await patchOk(survey.id, { start_date: '2024-01-01T00:00:00Z' });
    const response = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/feature_flags/${flagId}/activity/` });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual((response.json().results as Json[]).map((e) => e.activity), ['updated', 'created']);
  });
});
