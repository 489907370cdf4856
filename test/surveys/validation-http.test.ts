import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { assertValidation, createSurvey, getSurvey, minimalSurvey, patchSurvey, surveysUrl, type Json } from './support.ts';

// The survey rules through the API: every message is covered by validation.test.ts; here the rules
// are shown wired into POST and PATCH, with what is stored, and what must not happen on a refusal.

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(async () => {
  await t.close();
});

const post = (body: Json, projectId: number = t.projectId) =>
  t.request({ method: 'POST', url: surveysUrl(projectId), payload: body });

async function createFlag(body: Json, projectId: number = t.projectId): Promise<Json> {
  const response = await t.request({ method: 'POST', url: `/api/projects/${projectId}/feature_flags/`, payload: body });
  assert.equal(response.statusCode, 201, response.body);
  return response.json();
}

async function surveyCount(): Promise<number> {
  const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM surveys');
  return rows[0].n;
}

async function flagCount(): Promise<number> {
  const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM feature_flags');
  return rows[0].n;
}

async function storedRow(id: unknown): Promise<Json> {
  const { rows } = await t.db.pool.query('SELECT * FROM surveys WHERE id = $1', [id]);
  return rows[0];
}

/** Asserts a refused POST left no survey and no flag behind. */
async function refusedCreate(body: Json, detail: string, attr: string | null, code?: string): Promise<void> {
  const [surveys, flags] = [await surveyCount(), await flagCount()];
  assertValidation(await post(body), detail, attr, code);
  assert.equal(await surveyCount(), surveys, 'no survey is stored');
  assert.equal(await flagCount(), flags, 'no flag is created');
}

/** Asserts a refused PATCH left the stored survey as it was. */
async function refusedPatch(id: unknown, body: Json, detail: string, attr: string | null, code?: string): Promise<void> {
  const before = await storedRow(id);
  assertValidation(await patchSurvey(t, id, body), detail, attr, code);
  assert.deepEqual(await storedRow(id), before, 'the survey is unchanged');
}

describe('create: required fields and field rules', () => {
  test('name and type are required on POST', async () => {
    const { name: _name, ...noName } = minimalSurvey();
    await refusedCreate(noName, 'This field is required.', 'name', 'required');
    const { type: _type, ...noType } = minimalSurvey();
    await refusedCreate(noType, 'This field is required.', 'type', 'required');
  });

  test('a blank name and a bad schedule are refused', async () => {
    await refusedCreate(minimalSurvey({ name: '   ' }), 'This field may not be blank.', 'name', 'blank');
    await refusedCreate(minimalSurvey({ schedule: 'weekly' }), 'Schedule must be one of: once, recurring, always', 'schedule');
  });

  test('values of the wrong JSON type get the rule message, never a 500', async () => {
    const cases: Array<[Json, string, string | null]> = [
      [{ questions: 'x' }, 'Questions must be a list of objects', 'questions'],
      [{ questions: [5] }, 'Questions must be a list of objects', 'questions'],
      [{ questions: [{ question: 5 }] }, 'Question text must be a string', 'questions'],
      [{ questions: [{ question: 'q', choices: 'a' }] }, 'Question choices must be a list of strings', 'questions'],
      [{ questions: [{ question: 'q', translations: [] }] }, 'Question 1: translations must be an object', 'questions'],
      [{ questions: [{ question: 'q', link: {} }] }, 'Question 1: link must be a string', 'questions'],
      [{ questions: [{ question: 'q', validation: 'email' }] }, 'Question validation must be a list of validation rules', 'questions'],
      [{ conditions: 'x' }, 'Conditions must be an object', 'conditions'],
      [{ appearance: [] }, 'Appearance must be an object', 'appearance'],
      [{ appearance: { surveyPopupDelaySeconds: 'soon' } }, 'Survey popup delay seconds must be a positive integer', 'appearance'],
      [{ appearance: { thankYouMessageHeader: 5 } }, 'thankYouMessageHeader must be a string', 'appearance'],
      [{ translations: 'fr' }, 'Translations must be an object', 'translations'],
      [{ translations: { fr: { name: ['x'] } } }, "Translation for 'fr': 'name' must be a string", 'translations'],
      [{ targeting_flag_filters: 'all' }, 'Expected a dictionary of items but got type "str".', 'targeting_flag_filters'],
      [{ response_sampling_limit: 5 }, 'Response sampling interval should be set if response_sampling_limit is set.', 'response_sampling_interval'],
    ];
    for (const [body, detail, attr] of cases) await refusedCreate(minimalSurvey(body), detail, attr);
  });
});

describe('create: questions, sanitisation and translations', () => {
  test('HTML texts are sanitised in the answer and in storage; name and description are not', async () => {
    const dirty = '<b>Hi</b><script>alert(0)</script>';
    const created = await createSurvey(t, {
      name: `<i>Name</i> ${Date.now()}`,
      description: dirty,
      questions: [
        { type: 'single_choice', question: dirty, description: '<script>alert(0)</script>check?', choices: [dirty, 'a < b'], translations: { fr: { question: dirty }, de: {} } },
        { type: 'link', question: 'Visit', link: 'https://posthog.com' },
      ],
      appearance: { thankYouMessageHeader: "<b>We'll use it...<script>alert(0)</script>", thankYouMessageDescription: '<a href="https://x.com">x</a>' },
      translations: { fr: { name: dirty, unknown: 'dropped' }, es: { other: 1 } },
    });
    assert.match(String(created.name), /^<i>Name<\/i>/);
    assert.equal(created.description, dirty);
    const questions = created.questions as Json[];
    assert.equal(questions[0].question, '<b>Hi</b>');
    assert.equal(questions[0].description, 'check?');
    assert.deepEqual(questions[0].choices, ['<b>Hi</b>', 'a < b']);
    assert.deepEqual(questions[0].translations, { fr: { question: '<b>Hi</b>' } });
    assert.equal(typeof questions[0].id, 'string', 'the service assigns question ids');
    assert.deepEqual(created.appearance, {
      thankYouMessageHeader: "<b>We'll use it...</b>",
      thankYouMessageDescription: '<a href="https://x.com" rel="noopener">x</a>',
    });
    assert.deepEqual(created.translations, { fr: { name: '<b>Hi</b>' } });

    const stored = await storedRow(created.id);
    assert.equal((stored.questions as Json[])[0].question, '<b>Hi</b>');
    assert.deepEqual(stored.translations, { fr: { name: '<b>Hi</b>' } });
    const read = await getSurvey(t, created.id);
    assert.deepEqual(read.questions, created.questions);
  });

  test('question rules answer 400 with PostHog numbering', async () => {
    await refusedCreate(
      minimalSurvey({ questions: [{ type: 'open', question: 'a' }, { type: 'link', question: 'b', link: 'http://insecure.com' }] }),
      'Link must be a URL with one of these schemes: [https, mailto]',
      'questions',
    );
    await refusedCreate(
      minimalSurvey({ questions: [{ type: 'single_choice', question: 'a', choices: ['x', 'y'], translations: { fr: { choices: ['x'] } } }] }),
      "Question 1: Translation 'fr' has 1 choices but question has 2 choices. Array lengths must match to avoid partial translations.",
      'questions',
    );
  });

  test('whiteLabel is allowed; unknown action ids in conditions are kept', async () => {
    const conditions = { actions: { values: [{ id: 12345, name: 'Nope' }] }, url: 'posthog.com' };
    const created = await createSurvey(t, { appearance: { whiteLabel: true }, conditions });
    assert.deepEqual(created.appearance, { whiteLabel: true });
    assert.deepEqual((await getSurvey(t, created.id)).conditions, conditions);
  });
});

describe('create: object-level rules', () => {
  test('linked_flag_id must be a live flag of this project', async () => {
    await refusedCreate(minimalSurvey({ linked_flag_id: 999999 }), 'Feature Flag with this ID does not exist', null);
    const other = await t.request({ method: 'POST', url: '/api/projects/', payload: { name: `Other ${Date.now()}` } });
    assert.equal(other.statusCode, 201, other.body);
    const foreign = await createFlag({ key: `foreign-${Date.now()}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }, other.json().id);
    await refusedCreate(minimalSurvey({ linked_flag_id: foreign.id }), 'Feature Flag with this ID does not exist', null);
    const deleted = await createFlag({ key: `deleted-${Date.now()}`, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    await t.db.pool.query('UPDATE feature_flags SET deleted = true WHERE id = $1', [deleted.id]);
    await refusedCreate(minimalSurvey({ linked_flag_id: deleted.id }), 'Feature Flag with this ID does not exist', null);
    await refusedCreate(minimalSurvey({ targeting_flag_id: foreign.id }), 'Targeting Feature Flag with this ID does not exist', null);
  });

  test('linkedFlagVariant must be a variant of the linked flag', async () => {
    const flag = await createFlag({
      key: `multi-${Date.now()}`,
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
      },
    });
    await refusedCreate(
      minimalSurvey({ linked_flag_id: flag.id, conditions: { linkedFlagVariant: 'other' } }),
      "Feature flag variant 'other' does not exist. Available variants: control, test",
      null,
    );
    await refusedCreate(
      minimalSurvey({ conditions: { linkedFlagVariant: 'test' } }),
      'linkedFlagVariant can only be used when a linked_flag_id is specified',
      null,
    );
    const created = await createSurvey(t, { linked_flag_id: flag.id, conditions: { linkedFlagVariant: 'test' } });
    assert.equal((created.linked_flag as Json).id, flag.id);
  });

  test('names are unique in the project', async () => {
    const first = await createSurvey(t);
    await refusedCreate(minimalSurvey({ name: first.name }), 'There is already a survey with this name.', 'name', 'unique');
    const second = await createSurvey(t);
    await refusedPatch(second.id, { name: first.name }, 'There is already another survey with this name.', 'name', 'unique');
    const same = await patchSurvey(t, second.id, { name: second.name, description: 'same name is fine' });
    assert.equal(same.statusCode, 200, same.body);
  });

  test('targeting that rolls out to everyone creates no flag', async () => {
    await refusedCreate(
      minimalSurvey({ targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }),
      'Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting',
      null,
    );
  });

  test('response sampling rules', async () => {
    await refusedCreate(
      minimalSurvey({ response_sampling_start_date: '2020-01-01T10:00:00Z' }),
      `Response sampling start date must be today or a future date in UTC. Got 2020-01-01 10:00:00+00:00 when current time is ${new Date().toISOString().slice(0, 10)} 00:00:00+00:00`,
      'response_sampling_start_date',
    );
    await refusedCreate(minimalSurvey({ response_sampling_interval: 0 }), 'Response sampling interval must be greater than 0.', 'response_sampling_interval');
    await refusedCreate(
      minimalSurvey({ response_sampling_limit: 10, response_sampling_interval: 1 }),
      'Response sampling start date should be set if response_sampling_start_date is not zero.',
      'response_sampling_start_date',
    );
  });

  test('shuffling with branching is refused', async () => {
    await refusedCreate(
      minimalSurvey({ appearance: { shuffleQuestions: true }, questions: [{ type: 'open', question: 'a', branching: { type: 'end' } }] }),
      'Question shuffling and question branching cannot be used together. Please disable one of these features.',
      null,
    );
  });

  test('external surveys take no in-app targeting', async () => {
    await refusedCreate(
      minimalSurvey({ type: 'external_survey', conditions: { url: 'x', events: { values: [{ name: 'e' }] } } }),
      'The following condition fields are not allowed for external surveys: url, events',
      'conditions',
    );
    await refusedCreate(
      minimalSurvey({ type: 'external_survey', appearance: { surveyPopupDelaySeconds: 3 } }),
      'surveyPopupDelaySeconds is not allowed for external surveys',
      'appearance',
    );
    const created = await createSurvey(t, { type: 'external_survey', conditions: { actions: { values: [] } } });
    assert.equal(created.type, 'external_survey');
  });
});

describe('update', () => {
  test('a refused PATCH changes nothing', async () => {
    const survey = await createSurvey(t);
    await refusedPatch(survey.id, { questions: 'x', description: 'not stored' }, 'Questions must be a list of objects', 'questions');
    await refusedPatch(survey.id, { schedule: 'daily' }, 'Schedule must be one of: once, recurring, always', 'schedule');
    await refusedPatch(survey.id, { conditions: { linkedFlagVariant: 'x' } }, 'linkedFlagVariant can only be used when a linked_flag_id is specified', null);
  });

  test('name and type may be left out', async () => {
    const survey = await createSurvey(t);
    const response = await patchSurvey(t, survey.id, { description: 'only this' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().description, 'only this');
  });

  test('shuffle vs branching looks at the stored appearance and questions', async () => {
    const shuffled = await createSurvey(t, { appearance: { shuffleQuestions: true } });
    await refusedPatch(
      shuffled.id,
      { questions: [{ type: 'open', question: 'a', branching: { type: 'end' } }] },
      'Question shuffling and question branching cannot be used together. Please disable one of these features.',
      null,
    );
    const branched = await createSurvey(t, { questions: [{ type: 'open', question: 'a', branching: { type: 'end' } }] });
    await refusedPatch(
      branched.id,
      { appearance: { shuffleQuestions: true } },
      'Question shuffling and question branching cannot be used together. Please disable one of these features.',
      null,
    );
    const off = await patchSurvey(t, shuffled.id, { appearance: { shuffleQuestions: false }, questions: [{ type: 'open', question: 'a', branching: { type: 'end' } }] });
    assert.equal(off.statusCode, 200, off.body);
  });

  test('PATCH sanitises like POST', async () => {
    const survey = await createSurvey(t);
    const response = await patchSurvey(t, survey.id, {
      questions: [{ type: 'open', question: '<script>alert(0)</script>check?' }],
      appearance: { thankYouMessageCloseButtonText: '<u>Close' },
      translations: { fr: { thankYouMessageCloseButtonText: '<script>x</script>Fermer' } },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.questions[0].question, 'check?');
    assert.equal(body.appearance.thankYouMessageCloseButtonText, '<u>Close</u>');
    assert.deepEqual(body.translations, { fr: { thankYouMessageCloseButtonText: 'Fermer' } });
    const stored = await storedRow(survey.id);
    assert.equal((stored.questions as Json[])[0].question, 'check?');
  });
});
