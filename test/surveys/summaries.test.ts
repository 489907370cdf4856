import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { composeHeadline } from '../../src/surveys/summaries/headline.ts';
import { questionsOf } from '../../src/surveys/summaries/questions.ts';
import { choiceDistribution, ratingStats } from '../../src/surveys/summaries/stats.ts';
import { summarizeQuestion } from '../../src/surveys/summaries/summarize.ts';
import { isLowQualityAnswer, wordCount } from '../../src/surveys/summaries/text.ts';
import { extractThemes } from '../../src/surveys/summaries/themes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createSurvey, keyWith, otherProject, surveysUrl, type Json } from './support.ts';

const OPEN = { id: 'q-open', type: 'open', question: 'What should we improve?' };
const NPS = { id: 'q-nps', type: 'rating', question: 'How likely are you to recommend us?', scale: 10, display: 'number', lowerBoundLabel: 'Unlikely', upperBoundLabel: 'Very likely' };
const PLAN = { id: 'q-plan', type: 'single_choice', question: 'Which plan do you use?', choices: ['Free', 'Pro', 'Enterprise', 'Other'], hasOpenChoice: true };
const FIVE = { id: 'q-five', type: 'rating', question: 'How easy was setup?', scale: 5, display: 'emoji' };
const LINK = { id: 'q-link', type: 'link', question: 'Read the changelog', link: 'https://example.com/changelog' };

/** Seven answers, oldest first: two themes (dark mode, pricing), one unthemed, one low quality. */
const OPEN_ANSWERS = [
  'Please add dark mode',
  'The pricing is too high for small teams',
  'Dark mode would be great at night',
  'Pricing tiers are confusing',
  'I want dark mode and better docs',
  'ok',
  'Search is slow',
];

describe('pure summaries', () => {
  test('summaries quote a question by its words: markup is left out', () => {
    const [question] = questionsOf([{ ...NPS, question: '<p>How <b>likely</b>\n are you?</p>' }]);
    assert.equal(question.text, 'How likely are you?');
  });

  const [open, nps, plan, five] = questionsOf([OPEN, NPS, PLAN, FIVE]);

  test('themes of open answers: shared terms, a phrase over its words, frequency bands', () => {
    const analysis = extractThemes(OPEN_ANSWERS.filter((a) => !isLowQualityAnswer(a)));
    assert.deepEqual(
      analysis.themes.map((t) => [t.label, t.answers, t.frequency]),
      [
        ['Dark mode', [0, 2, 4], 'Common'],
        ['Pricing', [1, 3], 'Moderate'],
      ],
    );
    assert.equal(analysis.unthemed, 1);
    assert.equal(analysis.total, 6);
    assert.deepEqual(extractThemes(['one thing', 'another idea entirely']).themes, [], 'nothing shared: no theme');
    const exports = ['Export to CSV is slow', 'CSV export fails for large files', 'Export of large reports times out'];
    assert.deepEqual(extractThemes(exports).themes, [{ label: 'Export', answers: [0, 1, 2], frequency: 'Common', relatedWords: ['large', 'csv'] }]);
    assert.match(summarizeQuestion(open, exports)!.content, /- \*\*Export\*\* \(Common\): 3 of 3 responses \(100%\) mention export, often with "large" and "csv"\. Example: "Export to CSV is slow"\n/);
  });

  test('an open question: exact Markdown in PostHog layout, deterministic', () => {
    const summary = summarizeQuestion(open, OPEN_ANSWERS);
    assert.deepEqual(summary, {
      responseCount: 6,
      content:
        '6 responses to "What should we improve?" were analysed. The main themes are Dark mode (50%) and Pricing (33%). ' +
        '1 of 6 responses (17%) shares no theme with others.\n\n' +
        '**Key Themes:**\n' +
        '- **Dark mode** (Common): 3 of 6 responses (50%) mention dark mode. Example: "Please add dark mode"\n' +
        '- **Pricing** (Moderate): 2 of 6 responses (33%) mention pricing. Example: "The pricing is too high for small teams"\n\n' +
        '**Key Insight:** Dark mode is the most frequent theme: 3 of 6 responses (50%) raise it. Next comes Pricing (33%).',
    });
    assert.deepEqual(summarizeQuestion(open, [...OPEN_ANSWERS]), summary, 'same input, same text');
  });

  test('answers without a shared topic: one "Individual feedback" theme', () => {
    assert.equal(
      summarizeQuestion(open, ['Faster exports would help', 'Love the new onboarding flow'])?.content,
      '2 responses to "What should we improve?" were analysed. No topic is shared by two or more responses.\n\n' +
        '**Key Themes:**\n' +
        '- **Individual feedback** (Rare): Each of the 2 responses raises its own point. Example: "Faster exports would help"\n\n' +
        '**Key Insight:** No theme recurs; the responses are best read individually.',
    );
  });

  test('a 0–10 rating: average, promoters/passives/detractors and NPS', () => {
    const stats = ratingStats([10, 9, 8, 7, 3, 6, 10, 9], 10);
    assert.equal(stats.average, 7.75);
    assert.deepEqual(stats.nps, { score: 25, promoters: 4, passives: 2, detractors: 2 });
    assert.equal(
      summarizeQuestion(nps, ['10', 9, '8', '7', '3', '6', '10', '9', 'not a number', '11'])?.content,
      '8 ratings of "How likely are you to recommend us?" average 7.8 out of 10. NPS is 25: 4 promoters, 2 passives and 2 detractors.\n\n' +
        '**Key Themes:**\n' +
        '- **Promoters** (Common): 4 of 8 ratings (50%) are 9 or 10.\n' +
        '- **Passives** (Moderate): 2 of 8 ratings (25%) are 7 or 8.\n' +
        '- **Detractors** (Moderate): 2 of 8 ratings (25%) are 6 or lower.\n\n' +
        '**Key Insight:** Promoters outnumber detractors, for an NPS of 25.',
    );
    assert.deepEqual(ratingStats([0, 6, 6, 9], 10).nps, { score: -50, promoters: 1, passives: 0, detractors: 3 });
  });

  test('a 1–5 rating: average and high/neutral/low bands, no NPS', () => {
    assert.equal(ratingStats([5, 4, 3], 5).nps, null);
    assert.equal(
      summarizeQuestion(five, [5, 4, 4, 3, 1])?.content,
      '5 ratings of "How easy was setup?" average 3.4 out of 5.\n\n' +
        '**Key Themes:**\n' +
        '- **High ratings** (Common): 3 of 5 ratings (60%) are above 3.\n' +
        '- **Neutral ratings** (Moderate): 1 of 5 ratings (20%) is 3.\n' +
        '- **Low ratings** (Moderate): 1 of 5 ratings (20%) is below 3.\n\n' +
        '**Key Insight:** The largest group is high ratings: 3 of 5 ratings (60%).',
    );
  });

  test('choice questions: the distribution, and only written-in answers are summarised', () => {
    const answers = ['Pro', 'Free', 'Pro', 'Enterprise', 'Pro', 'We self-host it', 'Free', 'Pro'];
    assert.deepEqual(choiceDistribution(answers, plan), {
      respondents: 8,
      shares: [
        { choice: 'Pro', count: 4, percent: 50 },
        { choice: 'Free', count: 2, percent: 25 },
        { choice: 'Enterprise', count: 1, percent: 13 },
        { choice: 'Other', count: 1, percent: 13 },
      ],
    });
    const multiple = questionsOf([{ ...PLAN, type: 'multiple_choice' }])[0];
    assert.deepEqual(choiceDistribution([['Pro', 'Free'], ['Pro'], ['Custom thing']], multiple).shares, [
      { choice: 'Pro', count: 2, percent: 67 },
      { choice: 'Free', count: 1, percent: 33 },
      { choice: 'Other', count: 1, percent: 33 },
    ]);
    assert.equal(summarizeQuestion(plan, ['Pro', 'Free', 'Other'])?.content, undefined, 'only predefined choices: nothing to analyse');
    assert.equal(summarizeQuestion(plan, ['Pro', 'Student discount please', 'Free', 'student pricing'])?.responseCount, 2);
  });

  test('low-quality answers', () => {
    for (const junk of ['ok', 'asdf', 'aaaaaaa', '!!!!!!!!', '   ']) assert.equal(isLowQualityAnswer(junk), true, junk);
    for (const fine of ['ui', 'Pricing', 'API', 'performance', 'too slow', 'documentation']) assert.equal(isLowQualityAnswer(fine), false, fine);
  });

  test('headline: one sentence of at most 20 words, clauses in question order', () => {
    const rows = OPEN_ANSWERS.map((answer, i) => ({
      '$survey_response_q-open': answer,
      '$survey_response_q-nps': String([10, 9, 8, 7, 3, 6, 10][i]),
      '$survey_response_2': ['Free', 'Pro', 'Pro', 'Free', 'Pro', 'Mine', 'Pro'][i],
    }));
    const headline = composeHeadline(questionsOf([OPEN, NPS, PLAN]), rows);
    assert.equal(headline, 'Across 7 responses, answers mention dark mode and pricing, ratings average 7.6/10 (NPS 14), and "Pro" led with 57%.');
    assert.ok(wordCount(headline) <= 20);
    const many = questionsOf([NPS, FIVE, PLAN, OPEN, { ...NPS, id: 'q-nps-2' }]);
    const long = composeHeadline(many, [{ '$survey_response_q-nps': 9, '$survey_response_q-five': 4, '$survey_response_q-plan': 'Enterprise', '$survey_response_q-open': 'Dark mode please, dark mode', '$survey_response_q-nps-2': 10 }]);
    assert.ok(wordCount(long) <= 20, long);
    assert.equal(long, 'Across 1 response, ratings average 9.0/10 (NPS 100), ratings average 4.0/5, "Enterprise" led with 100%, and answers cover varied topics.');
  });
});

let t: TestApp;
let token: string;
let readKey: string;

before(async () => {
  t = await startTestApp();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  readKey = await keyWith(t, ['survey:read']);
});
after(async () => {
  await t.close();
});

const HOUR = 3_600_000;
const daysAgo = (days: number) => new Date(Date.now() - days * 24 * HOUR).toISOString();

/** `survey sent` events through /batch/, oldest first (one second apart, ending a minute ago); answers their uuids. */
async function sendResponses(surveyId: unknown, responses: Json[], start = Date.now() - HOUR): Promise<string[]> {
  const uuids = responses.map(() => randomUUID());
  const batch = responses.map((properties, i) => ({
    event: 'survey sent',
    distinct_id: `person-${i}`,
    uuid: uuids[i],
    timestamp: new Date(start + i * 1000).toISOString(),
    properties: { $survey_id: surveyId, $survey_submission_id: randomUUID(), $survey_completed: true, ...properties },
  }));
  const response = await t.app.inject({ method: 'POST', url: '/batch/', payload: { api_key: token, batch } });
  assert.equal(response.statusCode, 200, response.body);
  return uuids;
}

const summarize = (id: unknown, query: string, payload: Json = {}, key?: string | null, projectId = t.projectId) =>
  t.request({ method: 'POST', url: `${surveysUrl(projectId)}${id}/summarize_responses/${query}`, payload, key });
const headline = (id: unknown, payload: Json = {}, key?: string | null) =>
  t.request({ method: 'POST', url: `${surveysUrl(t.projectId)}${id}/summary_headline/`, payload, key });

async function storedCaches(id: unknown): Promise<Json> {
  const { rows } = await t.db.pool.query('SELECT question_summaries, headline_summary, headline_response_count FROM surveys WHERE id = $1', [id]);
  return rows[0];
}

function assertError(response: { statusCode: number; body: string; json(): Json }, status: number, expected: Json) {
  assert.equal(response.statusCode, status, response.body);
  const body = response.json();
  assert.deepEqual(Object.keys(body).sort(), ['attr', 'code', 'detail', 'type']);
  for (const [field, value] of Object.entries(expected)) assert.deepEqual(body[field], value, `${field}: ${response.body}`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST summarize_responses', () => {
  test('an open question by id: computed, stored, served from the store, recomputed on force_refresh', async () => {
    const survey = await createSurvey(t, { questions: [OPEN, NPS], start_date: daysAgo(2) });
    await sendResponses(survey.id, OPEN_ANSWERS.map((answer) => ({ '$survey_response_q-open': answer, '$survey_response_q-nps': 9 })));

    const first = await summarize(survey.id, '?question_id=q-open', {}, readKey);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['cache-control'], 'private, max-age=15');
    const body = first.json();
    assert.deepEqual(Object.keys(body).sort(), ['cached', 'content', 'generated_at', 'response_count', 'trace_id']);
    assert.equal(body.cached, false);
    assert.equal(body.response_count, 6);
    assert.match(body.trace_id, UUID);
    assert.ok(Math.abs(Date.parse(body.generated_at) - Date.now()) < 60_000);
    // Newest first: each theme's example is its newest answer.
    assert.equal(
      body.content,
      '6 responses to "What should we improve?" were analysed. The main themes are Dark mode (50%) and Pricing (33%). ' +
        '1 of 6 responses (17%) shares no theme with others.\n\n' +
        '**Key Themes:**\n' +
        '- **Dark mode** (Common): 3 of 6 responses (50%) mention dark mode. Example: "I want dark mode and better docs"\n' +
        '- **Pricing** (Moderate): 2 of 6 responses (33%) mention pricing. Example: "Pricing tiers are confusing"\n\n' +
        '**Key Insight:** Dark mode is the most frequent theme: 3 of 6 responses (50%) raise it. Next comes Pricing (33%).',
    );
    const stored = (await storedCaches(survey.id)).question_summaries as Json;
    assert.deepEqual(stored, {
      'q-open': { summary: body.content, responseCount: 6, generatedAt: body.generated_at, traceId: body.trace_id },
    });

    await sendResponses(survey.id, [{ '$survey_response_q-open': 'Dark mode dark mode dark mode everywhere' }]);
    const cached = await summarize(survey.id, '?question_id=q-open');
    assert.equal(cached.statusCode, 200);
    assert.deepEqual(cached.json(), { ...body, cached: true });

    const refreshed = await summarize(survey.id, '?question_id=q-open', { force_refresh: true });
    assert.equal(refreshed.json().cached, false);
    assert.equal(refreshed.json().response_count, 7);
    assert.notEqual(refreshed.json().trace_id, body.trace_id);
    assert.equal((((await storedCaches(survey.id)).question_summaries as Json)['q-open'] as Json).responseCount, 7);

    // Another question's summary is stored next to it.
    const rating = (await summarize(survey.id, '?question_id=q-nps')).json();
    assert.equal(rating.response_count, 7);
    const both = (await storedCaches(survey.id)).question_summaries as Record<string, Json>;
    assert.deepEqual(Object.keys(both).sort(), ['q-nps', 'q-open']);
    assert.equal(both['q-open'].responseCount, 7);
    assert.equal(both['q-nps'].summary, rating.content);
  });

  test('a rating question by index: average and NPS; not stored (no question id)', async () => {
    const survey = await createSurvey(t, { questions: [OPEN, NPS], start_date: daysAgo(1) });
    const ratings = [10, 9, 8, 7, 3, 6, 10, 9];
    // Half the clients send the rating as a string, some only under the legacy index key.
    await sendResponses(
      survey.id,
      ratings.map((r, i) => (i % 3 === 0 ? { $survey_response_1: r } : { '$survey_response_q-nps': i % 2 ? String(r) : r })),
    );
    const response = await summarize(survey.id, '?question_index=1');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().response_count, 8);
    assert.match(response.json().content, /^8 ratings of "How likely are you to recommend us\?" average 7\.8 out of 10\. NPS is 25: 4 promoters, 2 passives and 2 detractors\.\n/);
    assert.equal((await storedCaches(survey.id)).question_summaries, null);
    assert.equal((await summarize(survey.id, '?question_index=1')).json().cached, false, 'index requests are never served from the store');
  });

  test('archived responses, responses outside the window and of other surveys are left out; one answer per submission', async () => {
    const survey = await createSurvey(t, { questions: [OPEN], start_date: daysAgo(1) });
    const other = await createSurvey(t, { questions: [OPEN], start_date: daysAgo(1) });
    const uuids = await sendResponses(survey.id, [
      { '$survey_response_q-open': 'Pricing is unclear' },
      { '$survey_response_q-open': 'Pricing page is confusing' },
      { '$survey_response_q-open': 'Onboarding took too long' },
      { '$survey_response_q-open': 'Onboarding emails were useful' },
    ]);
    await sendResponses(other.id, [{ '$survey_response_q-open': 'Onboarding onboarding onboarding is great' }]);
    // Three days ago: before the day of start_date.
    await sendResponses(survey.id, [{ '$survey_response_q-open': 'Pricing from before the launch' }], Date.now() - 3 * 24 * HOUR);
    // Two events of one submission: only the latest counts.
    const submission = randomUUID();
    await sendResponses(survey.id, [
      { '$survey_response_q-open': 'Pricing draft answer', $survey_submission_id: submission, $survey_completed: false },
      { '$survey_response_q-open': 'Onboarding final answer', $survey_submission_id: submission },
    ]);
    const all = (await summarize(survey.id, '?question_id=q-open', { force_refresh: true })).json();
    assert.equal(all.response_count, 5);
    assert.match(all.content, /The main themes are Onboarding \(60%\) and Pricing \(40%\)\./);

    await t.db.pool.query('INSERT INTO survey_response_archives (project_id, survey_id, response_uuid) VALUES ($1, $2, $3), ($1, $2, $4)', [
      t.projectId,
      survey.id,
      uuids[0],
      uuids[1],
    ]);
    const without = (await summarize(survey.id, '?question_id=q-open', { force_refresh: true })).json();
    assert.equal(without.response_count, 3);
    assert.match(without.content, /^3 responses to "What should we improve\?" were analysed\. The main theme is Onboarding \(100%\)\./);
    assert.doesNotMatch(without.content, /Pricing/);
  });

  test('a choice question: predefined choices dropped; nothing left → "No responses to analyze." (not stored)', async () => {
    const survey = await createSurvey(t, { questions: [PLAN], start_date: daysAgo(1) });
    await sendResponses(survey.id, ['Pro', 'Free', 'Pro', 'Enterprise'].map((a) => ({ '$survey_response_q-plan': a })));
    const empty = await summarize(survey.id, '?question_id=q-plan');
    assert.equal(empty.statusCode, 200, empty.body);
    const body = empty.json();
    assert.deepEqual(Object.keys(body).sort(), ['cached', 'content', 'generated_at', 'response_count']);
    assert.deepEqual({ ...body, generated_at: null }, { content: 'No responses to analyze.', response_count: 0, generated_at: null, cached: false });
    assert.equal((await storedCaches(survey.id)).question_summaries, null);

    await sendResponses(survey.id, ['Student discount please', 'A student pricing tier'].map((a) => ({ '$survey_response_q-plan': a })));
    const written = (await summarize(survey.id, '?question_id=q-plan')).json();
    assert.equal(written.response_count, 2);
    assert.match(written.content, /The main theme is Student \(100%\)\./);
  });

  test('errors: 404 in the standard body, the 400s of a missing or unknown question, bad force_refresh', async () => {
    const survey = await createSurvey(t, { questions: [OPEN] });
    const foreignProject = await otherProject(t);
    const foreign = await createSurvey(t, { questions: [OPEN] }, foreignProject);
    const notFound = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
    assertError(await summarize(randomUUID(), '?question_id=q-open'), 404, notFound);
    assertError(await summarize('12345', '?question_id=q-open'), 404, notFound);
    assertError(await summarize(foreign.id, '?question_id=q-open'), 404, notFound);
    assert.equal((await summarize(foreign.id, '?question_id=q-open', {}, undefined, foreignProject)).statusCode, 200);

    const required = { type: 'validation_error', detail: 'question_index or question_id is required', attr: null };
    assertError(await summarize(survey.id, ''), 400, required);
    assertError(await summarize(survey.id, '?question_index=first'), 400, required);
    assertError(await summarize(survey.id, '?question_id='), 400, required);
    const noText = { type: 'validation_error', detail: 'the text of the question is required', attr: null };
    assertError(await summarize(survey.id, '?question_id=nope'), 400, noText);
    assertError(await summarize(survey.id, '?question_index=7'), 400, noText);
    assertError(await summarize(survey.id, '?question_index=-1'), 400, noText);
    assertError(await summarize(survey.id, '?question_id=q-open', { force_refresh: 'sure' }), 400, { type: 'validation_error', attr: 'force_refresh' });
    assert.equal((await summarize(survey.id, '?question_index=0')).statusCode, 200);
    assert.equal((await summarize(survey.id, '?question_id=q-open&question_index=first', { name: 'ignored' })).statusCode, 200);
  });

  test('scope survey:read; 401 without a key; 405 for other methods', async () => {
    const survey = await createSurvey(t, { questions: [OPEN] });
    assertError(await summarize(survey.id, '?question_id=q-open', {}, null), 401, { code: 'not_authenticated' });
    const flagsOnly = await keyWith(t, ['feature_flag:read']);
    assertError(await summarize(survey.id, '?question_id=q-open', {}, flagsOnly), 403, { detail: "API key missing required scope 'survey:read'" });
    assertError(await headline(survey.id, {}, flagsOnly), 403, { detail: "API key missing required scope 'survey:read'" });
    assert.equal((await summarize(survey.id, '?question_id=q-open', {}, await keyWith(t, ['survey:write']))).statusCode, 200, 'write implies read');
    assert.equal((await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${survey.id}/summarize_responses/` })).statusCode, 405);
    assert.equal((await t.request({ method: 'GET', url: `${surveysUrl(t.projectId)}${survey.id}/summary_headline/` })).statusCode, 405);
  });
});

describe('POST summary_headline', () => {
  test('one sentence over the responses; stored and served until force_refresh', async () => {
    const survey = await createSurvey(t, { questions: [OPEN, NPS, PLAN, LINK], start_date: daysAgo(1) });
    await sendResponses(
      survey.id,
      OPEN_ANSWERS.map((answer, i) => ({
        '$survey_response_q-open': answer,
        '$survey_response_q-nps': [10, 9, 8, 7, 3, 6, 10][i],
        '$survey_response_q-plan': ['Free', 'Pro', 'Pro', 'Free', 'Pro', 'Mine', 'Pro'][i],
        '$survey_response_q-link': 'link clicked',
      })),
    );
    const first = await headline(survey.id, {}, readKey);
    assert.equal(first.statusCode, 200, first.body);
    const expected = 'Across 7 responses, answers mention dark mode and pricing, ratings average 7.6/10 (NPS 14), and "Pro" led with 57%.';
    assert.deepEqual(first.json(), { headline: expected, responses_sampled: 7, has_more: false });
    assert.deepEqual(await storedCaches(survey.id), { question_summaries: null, headline_summary: expected, headline_response_count: 7 });

    await sendResponses(survey.id, [{ '$survey_response_q-nps': 0 }]);
    assert.deepEqual((await headline(survey.id)).json(), { headline: expected, responses_sampled: 7, has_more: false }, 'cached');
    const refreshed = (await headline(survey.id, { force_refresh: true })).json();
    assert.equal(refreshed.responses_sampled, 8);
    assert.match(refreshed.headline, /^Across 8 responses, .*ratings average 6\.6\/10 \(NPS 0\)/);
    assert.equal((await storedCaches(survey.id)).headline_response_count, 8);
  });

  test('at most 100 responses, newest first, has_more; incomplete and archived responses left out', async () => {
    const survey = await createSurvey(t, { questions: [NPS], start_date: daysAgo(1) });
    const uuids = await sendResponses(survey.id, Array.from({ length: 103 }, (_, i) => ({ '$survey_response_q-nps': i < 3 ? 0 : 10 })));
    const many = (await headline(survey.id)).json();
    assert.deepEqual(many, { headline: 'Across 100 responses, ratings average 10.0/10 (NPS 100).', responses_sampled: 100, has_more: true });

    await t.db.pool.query('INSERT INTO survey_response_archives (project_id, survey_id, response_uuid) SELECT $1, $2, unnest($3::uuid[])', [
      t.projectId,
      survey.id,
      uuids.slice(3),
    ]);
    await sendResponses(survey.id, [{ '$survey_response_q-nps': 9, $survey_completed: false }]);
    assert.deepEqual((await headline(survey.id, { force_refresh: true })).json(), {
      headline: 'Across 3 responses, ratings average 0.0/10 (NPS -100).',
      responses_sampled: 3,
      has_more: false,
    });
  });

  test('partial responses: the latest event of each submission counts', async () => {
    const survey = await createSurvey(t, { questions: [NPS, OPEN], start_date: daysAgo(1), enable_partial_responses: true });
    const submission = randomUUID();
    await sendResponses(survey.id, [
      { '$survey_response_q-nps': 2, $survey_submission_id: submission, $survey_completed: false },
      { '$survey_response_q-nps': 10, '$survey_response_q-open': 'Great docs and great support', $survey_submission_id: submission, $survey_completed: false },
      { '$survey_response_q-nps': 9 },
    ]);
    assert.deepEqual((await headline(survey.id)).json(), {
      headline: 'Across 2 responses, ratings average 9.5/10 (NPS 100), and answers cover varied topics.',
      responses_sampled: 2,
      has_more: false,
    });
  });

  test('no responses, no questions; 404', async () => {
    const quiet = await createSurvey(t, { questions: [OPEN], start_date: daysAgo(1) });
    assert.deepEqual((await headline(quiet.id)).json(), { headline: 'No responses yet', responses_sampled: 0, has_more: false });
    const links = await createSurvey(t, { questions: [LINK] });
    assert.deepEqual((await headline(links.id)).json(), { headline: 'No questions in survey', responses_sampled: 0, has_more: false });
    assert.deepEqual(await storedCaches(quiet.id), { question_summaries: null, headline_summary: null, headline_response_count: null });
    assertError(await headline(randomUUID()), 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    assertError(await headline('nope'), 404, { code: 'not_found' });
    assertError(await headline(quiet.id, { force_refresh: 2 }), 400, { attr: 'force_refresh' });
  });
});
