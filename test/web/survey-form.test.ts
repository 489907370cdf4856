// The survey builder's mapping between a survey and its form (web/src/surveys): every survey shape
// the API accepts comes back unchanged through form → body → PATCH (run against the real API), edits
// keep what the builder does not show, branching follows moved and removed questions, server errors
// land on their field, and the results page's per-question numbers (NPS, choices, open choice).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createSurvey, createUserFlag, getSurvey, patchSurvey, type Json } from '../surveys/support.ts';
import {
  moveQuestion,
  newQuestion,
  newSurveyForm,
  removeQuestion,
  responseBuckets,
  serverIssuePath,
  surveyFormBody,
  surveyIssues,
  surveyToForm,
  withQuestionType,
  type QuestionForm,
} from '../../web/src/surveys/survey-form.ts';
import { questionResult, responsesPerDay } from '../../web/src/surveys/results.ts';
import { surveyStatus } from '../../web/src/surveys/status.ts';
import type { Survey, SurveyResponseItem } from '../../web/src/surveys/types.ts';

/** Survey shapes the API accepts (its validation tests and PostHog's documented keys), as create bodies. */
function corpus(flag: Json): Json[] {
  return [
    { questions: [{ type: 'open', question: 'Why?' }] },
    { questions: [{ type: 'open', question: 'Email?', validation: [{ type: 'email' }, { type: 'min_length', value: 3 }], optional: true, buttonText: 'Next' }] },
    { questions: [{ type: 'link', question: 'Book a call', link: 'https://cal.example.com/x', buttonText: 'Book' }] },
    { questions: [{ type: 'link', question: 'Write to us', link: 'mailto:team@example.com' }] },
    { questions: [{ type: 'rating', question: 'NPS?', display: 'number', scale: 10, lowerBoundLabel: 'No', upperBoundLabel: 'Yes', isNpsQuestion: true }] },
    { questions: [{ type: 'rating', question: 'Mood?', display: 'emoji', scale: 3 }, { type: 'rating', question: 'Mood 5?', display: 'emoji', scale: 5 }] },
    { questions: [{ type: 'rating', question: 'Seven?', display: 'number', scale: 7, branching: { type: 'response_based', responseValues: { negative: 1, positive: 'end' } } }, { type: 'open', question: 'Why not?' }] },
    { questions: [{ type: 'single_choice', question: 'Pick', choices: ['A', 'B', 'Other'], hasOpenChoice: true, shuffleOptions: true, branching: { type: 'response_based', responseValues: { '0': 2, '1': 'end' } } }, { type: 'open', question: 'Skipped?' }, { type: 'open', question: 'Then?' }] },
    { questions: [{ type: 'multiple_choice', question: 'Pick some', choices: ['A', 'B', 'C'], description: '<b>bold</b>', descriptionContentType: 'html' }] },
    { questions: [{ type: 'open', question: 'One', branching: { type: 'specific_question', index: 2 } }, { type: 'open', question: 'Two', branching: { type: 'end' } }, { type: 'open', question: 'Three', branching: { type: 'next_question' } }] },
    { questions: [{ type: 'open', question: 'Translated', translations: { fr: { question: 'Traduit' } }, id: 'my-own-id', futureKey: { x: 1 } }] },
    {
      appearance: {
        backgroundColor: '#123456',
        submitButtonColor: 'red',
        position: 'left',
        placeholder: 'Type',
        displayThankYouMessage: true,
        thankYouMessageHeader: 'Thanks',
        thankYouMessageDescription: 'Really',
        thankYouMessageDescriptionContentType: 'text',
        surveyPopupDelaySeconds: 0,
        whiteLabel: false,
        shuffleQuestions: true,
        widgetType: 'tab',
        fontFamily: 'serif',
        unknownKey: [1, 2],
      },
    },
    { appearance: null, conditions: null },
    { conditions: { url: '/pricing', urlMatchType: 'exact', selector: '#buy', seenSurveyWaitPeriodInDays: 14, deviceTypes: ['Mobile'], deviceTypesMatchType: 'icontains', events: { repeatedActivation: true, values: [{ name: 'clicked' }] } } },
    { linked_flag_id: flag.id, conditions: { linkedFlagVariant: 'test' } },
    { linked_flag_id: flag.id, conditions: { linkedFlagVariant: 'any' } },
    { targeting_flag_filters: { groups: [{ properties: [{ key: 'email', value: 'example.com', operator: 'icontains', type: 'person' }], rollout_percentage: 100 }] } },
    { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 25 }, { properties: [{ key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'person' }], rollout_percentage: null }] } },
    { schedule: 'recurring', iteration_count: 3, iteration_frequency_days: 30 },
    { schedule: 'always', responses_limit: 500 },
    { response_sampling_start_date: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10) + 'T00:00:00Z', response_sampling_interval_type: 'week', response_sampling_interval: 2, response_sampling_limit: 100 },
    { enable_partial_responses: true, description: 'For the team', type: 'widget', appearance: { widgetType: 'button', widgetLabel: 'Feedback' } },
    { type: 'api', start_date: '2026-01-01T00:00:00Z' },
    { questions: [] },
  ];
}

/** What a survey is, for the builder: the fields it edits, as the API answers them. */
function editable(survey: Json): Json {
  return {
    name: survey.name,
    description: survey.description,
    type: survey.type,
    questions: survey.questions,
    appearance: survey.appearance,
    conditions: survey.conditions,
    linked_flag_id: survey.linked_flag_id,
    targeting_flag_filters: survey.targeting_flag?.filters ?? null,
    targeting_flag_key: survey.targeting_flag?.key ?? null,
    schedule: survey.schedule,
    iteration_count: survey.iteration_count,
    iteration_frequency_days: survey.iteration_frequency_days,
    responses_limit: survey.responses_limit,
    response_sampling_start_date: survey.response_sampling_start_date,
    response_sampling_interval_type: survey.response_sampling_interval_type,
    response_sampling_interval: survey.response_sampling_interval,
    response_sampling_limit: survey.response_sampling_limit,
    enable_partial_responses: survey.enable_partial_responses,
    start_date: survey.start_date,
    end_date: survey.end_date,
    archived: survey.archived,
  };
}

describe('every survey the API accepts comes back unchanged through the builder (real API)', () => {
  let t: TestApp;
  let flag: Json;
  before(async () => {
    t = await startTestApp();
    flag = await createUserFlag(t, { key: 'linked-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] } } });
  });
  after(() => t?.close());

  test('form → body → PATCH leaves each survey as it was', async () => {
    for (const [index, body] of corpus(flag).entries()) {
      const created = await createSurvey(t, body);
      const before = await getSurvey(t, created.id);
      const sent = surveyFormBody(surveyToForm(before as Survey));
      const response = await patchSurvey(t, created.id, sent);
      assert.equal(response.statusCode, 200, `shape ${index}: ${response.body}`);
      const afterPatch = await getSurvey(t, created.id);
      assert.deepEqual(editable(afterPatch), editable(before), `shape ${index} changed: ${JSON.stringify(body)}`);
    }
  });

  test('a new survey from the builder’s defaults is accepted as a draft', async () => {
    const form = newSurveyForm();
    form.name = 'From the builder';
    form.questions.push(newQuestion('rating'), newQuestion('single_choice'), newQuestion('multiple_choice'), newQuestion('link'));
    form.questions.forEach((question, i) => (question.value.question = `Q${i}`));
    assert.deepEqual(surveyIssues(form).map((issue) => issue.path), ['questions__4'], 'the link question starts without a host: the person types it');
    form.questions[4].value.link = 'https://example.com/book';
    assert.deepEqual(surveyIssues(form), []);
    const response = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/surveys/`, payload: surveyFormBody(form) });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().start_date, null);
    assert.equal(response.json().targeting_flag, null, 'no targeting flag without filters');
  });

  test('removing every person filter removes the targeting flag', async () => {
    const created = await createSurvey(t, corpus(flag)[16]);
    const form = surveyToForm((await getSurvey(t, created.id)) as Survey);
    assert.ok(form.targeting);
    form.targeting = null;
    const body = surveyFormBody(form);
    assert.equal(body.remove_targeting_flag, true);
    assert.equal('targeting_flag_filters' in body, false);
    assert.equal((await patchSurvey(t, created.id, body)).statusCode, 200);
    assert.equal((await getSurvey(t, created.id)).targeting_flag, null);
  });

  test('the server’s own errors are placed on their field', async () => {
    const clash = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/surveys/`, payload: { ...surveyFormBody(newSurveyForm()), name: (await createSurvey(t)).name } });
    const error = clash.json();
    assert.equal(serverIssuePath(error.attr, error.detail), 'name');
    const badLink = await t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/surveys/`,
      payload: { name: 'bad link', type: 'popover', questions: [{ type: 'open', question: 'a' }, { type: 'link', question: 'b', link: 'http://x.test' }] },
    });
    assert.equal(badLink.statusCode, 400);
    const linkError = badLink.json();
    assert.equal(serverIssuePath(linkError.attr, linkError.detail), 'questions', `${linkError.attr}: ${linkError.detail}`);
    const shuffle = await t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/surveys/`,
      payload: { name: 'shuffle', type: 'popover', appearance: { shuffleQuestions: true }, questions: [{ type: 'open', question: 'a', branching: { type: 'end' } }] },
    });
    assert.equal(shuffle.statusCode, 400);
    assert.equal(serverIssuePath(shuffle.json().attr, shuffle.json().detail), 'appearance');
  });
});

const q = (value: Json): QuestionForm => ({ uid: `u${JSON.stringify(value)}`, value });

describe('branching follows the questions', () => {
  const questions = [
    q({ type: 'single_choice', question: 'A', choices: ['x', 'y'], branching: { type: 'response_based', responseValues: { '0': 2, '1': 'end' } } }),
    q({ type: 'open', question: 'B', branching: { type: 'specific_question', index: 2 } }),
    q({ type: 'open', question: 'C' }),
  ];

  test('moving a question renumbers every branch that points at a moved question', () => {
    const moved = moveQuestion(questions, 2, 0);
    assert.deepEqual(
      moved.map((item) => item.value.question),
      ['C', 'A', 'B'],
    );
    assert.deepEqual(moved[1].value.branching, { type: 'response_based', responseValues: { '0': 0, '1': 'end' } });
    assert.deepEqual(moved[2].value.branching, { type: 'specific_question', index: 0 });
    assert.equal(moveQuestion(questions, 0, 5), questions, 'a move out of range changes nothing');
  });

  test('removing a question sends branches that pointed at it to the next question', () => {
    const removed = removeQuestion(questions, 2);
    assert.deepEqual(removed[0].value.branching, { type: 'response_based', responseValues: { '1': 'end' } });
    assert.deepEqual(removed[1].value.branching, { type: 'next_question' });
    const first = removeQuestion(questions, 0);
    assert.deepEqual(first[0].value.branching, { type: 'specific_question', index: 1 });
  });

  test('answer buckets are PostHog’s: choice indexes, NPS groups, sentiment for 3/5/7', () => {
    assert.deepEqual(responseBuckets(questions[0].value).map((b) => b.key), ['0', '1']);
    assert.deepEqual(responseBuckets({ type: 'rating', scale: 10 }).map((b) => b.key), ['detractors', 'passives', 'promoters']);
    assert.deepEqual(responseBuckets({ type: 'rating', scale: 5 }).map((b) => b.key), ['negative', 'neutral', 'positive']);
    assert.deepEqual(responseBuckets({ type: 'open' }), []);
  });

  test('changing a question’s type drops the old type’s keys and answer-based branching, keeps the rest', () => {
    const changed = withQuestionType(q({ id: 'keep', type: 'single_choice', question: 'A', choices: ['x'], hasOpenChoice: true, branching: { type: 'response_based', responseValues: {} }, translations: { fr: {} } }), 'rating');
    assert.equal(changed.value.id, 'keep');
    assert.equal(changed.value.question, 'A');
    assert.deepEqual(changed.value.translations, { fr: {} });
    assert.equal('choices' in changed.value, false);
    assert.equal('hasOpenChoice' in changed.value, false);
    assert.equal('branching' in changed.value, false);
    assert.equal(changed.value.scale, 10);
    const toMultiple = withQuestionType(q({ type: 'single_choice', question: 'A', choices: ['x', 'y'] }), 'multiple_choice');
    assert.deepEqual(toMultiple.value.choices, ['x', 'y'], 'choices survive between the two choice types');
  });
});

describe('checks before sending', () => {
  test('empty texts, empty choices, bad links, shuffle with branching, a variant without its flag', () => {
    const form = newSurveyForm();
    form.questions = [q({ type: 'open', question: ' ' }), q({ type: 'single_choice', question: 'x', choices: ['a', ''] }), q({ type: 'link', question: 'l', link: 'http://x' })];
    form.appearance = { shuffleQuestions: true };
    form.questions[0].value.branching = { type: 'end' };
    form.conditions = { linkedFlagVariant: 'test' };
    const paths = surveyIssues(form).map((issue) => issue.path);
    assert.deepEqual(paths, ['name', 'questions__0', 'questions__1', 'questions__2', 'appearance', 'conditions']);
  });
});

const response = (answers: Record<string, unknown>, timestamp = '2026-01-02T10:00:00Z'): SurveyResponseItem => ({
  uuid: `${Math.random()}`,
  distinct_id: 'd',
  person: null,
  timestamp,
  answers,
  archived: false,
  partial: false,
});

describe('results', () => {
  test('NPS on 0–10: promoters minus detractors, over answers in the scale', () => {
    const question = { id: 'q', type: 'rating', scale: 10 };
    const result = questionResult(question, 0, [response({ q: 10 }), response({ q: '9' }), response({ q: 7 }), response({ q: 0 }), response({ q: 42 }), response({})]);
    assert.equal(result.kind, 'rating');
    if (result.kind !== 'rating') return;
    assert.equal(result.answered, 4);
    assert.deepEqual(result.nps, { score: 25, promoters: 2, passives: 1, detractors: 1 });
    assert.equal(result.bars.length, 11);
    assert.equal(result.average, 26 / 4);
  });

  test('choices count each pick; typed answers go to the open choice', () => {
    const question = { id: 'q', type: 'multiple_choice', choices: ['A', 'B', 'Other'], hasOpenChoice: true };
    const result = questionResult(question, 0, [response({ q: ['A', 'B'] }), response({ q: ['A', 'my own'] }), response({ q: 'B' })]);
    assert.equal(result.kind, 'choice');
    if (result.kind !== 'choice') return;
    assert.deepEqual(result.bars, [
      { label: 'A', count: 2 },
      { label: 'B', count: 2 },
      { label: 'Other', count: 1 },
    ]);
    assert.deepEqual(result.openTexts, ['my own']);
  });

  test('responses per day fill the days without any', () => {
    const perDay = responsesPerDay([response({}, '2026-01-01T01:00:00Z'), response({}, '2026-01-03T23:00:00Z'), response({}, '2026-01-03T00:00:00Z')]);
    assert.deepEqual(perDay, { days: ['2026-01-01', '2026-01-02', '2026-01-03'], values: [1, 0, 2] });
    const week = responsesPerDay([response({}, '2026-01-03T10:00:00Z')], undefined, undefined, 7);
    assert.deepEqual(week.days, ['2025-12-28', '2025-12-29', '2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02', '2026-01-03']);
    assert.deepEqual(week.values, [0, 0, 0, 0, 0, 0, 1]);
  });

  test('status: draft, running, completed (end passed), archived first', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    assert.equal(surveyStatus({ start_date: null, end_date: null, archived: false }, now), 'draft');
    assert.equal(surveyStatus({ start_date: '2026-01-01T00:00:00Z', end_date: null, archived: false }, now), 'running');
    assert.equal(surveyStatus({ start_date: '2026-01-01T00:00:00Z', end_date: '2026-07-01T00:00:00Z', archived: false }, now), 'running');
    assert.equal(surveyStatus({ start_date: '2026-01-01T00:00:00Z', end_date: '2026-02-01T00:00:00Z', archived: false }, now), 'completed');
    assert.equal(surveyStatus({ start_date: null, end_date: null, archived: true }, now), 'archived');
  });
});
