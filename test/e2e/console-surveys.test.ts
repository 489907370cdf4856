// The survey pages in headless Chromium against the real service: a survey with a rating, a
// single-choice and an open-text question is built in the builder (the preview follows), launched
// from its page, answered by posthog-js on a page of another origin, and its results page counts the
// answer: the per-question charts and the responses table show it, archiving it hides it under
// "exclude archived" (and unarchiving brings it back), and the CSV holds it quoted.
// Event definitions: the list, a definition's page with its edits and the generated code.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL } from '../helpers/session.ts';
import { startPosthogJsSite, type PosthogJsSite } from './support/posthog-js-site.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, STEP_MS, type ConsolePage } from './support/console-browser.ts';
import { eventually } from '../helpers/eventually.ts';

const TEST_MS = 180_000;
const OPEN_ANSWER = 'Faster pages, "please" =1+1';

let t: TestApp;
let origin: string;
let token: string;
let browser: Browser;
let opened: ConsolePage;
let site: PosthogJsSite;

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  site = await startPosthogJsSite();
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  browser = await launchChromium();
  opened = await openConsole(browser, origin);
  await givePassword(t);
});

after(async () => {
  await browser?.close().catch(() => {});
  await site?.close();
  await t?.close();
});

let surveyId = '';

test('a survey with rating, single-choice and open-text questions is built in the builder, with the preview following', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await signInOnPage(opened, OWNER_EMAIL, GOOD_PASSWORD);
  await step(opened, 'the empty survey list did not show', async () => {
    await page.goto('/surveys');
    await page.getByRole('heading', { name: 'No surveys yet' }).waitFor();
  });
  await step(opened, 'the builder did not fill in', async () => {
    await page.getByRole('link', { name: 'New survey' }).click();
    await page.getByRole('heading', { name: 'New survey' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Checkout feedback');
    await page.getByLabel('Question 1: type', { exact: true }).selectOption('rating');
    await page.getByLabel('Question 1: question', { exact: true }).fill('How likely are you to recommend us?');
    await page.getByRole('button', { name: '+ Single choice' }).click();
    await page.getByLabel('Question 2: question', { exact: true }).fill('Did you find what you needed?');
    await page.getByRole('button', { name: '+ Open text' }).click();
    await page.getByLabel('Question 3: question', { exact: true }).fill('What should we improve?');
    // The preview shows the first question as posthog-js would: eleven rating buttons on 0–10.
    const preview = page.getByRole('group', { name: 'Survey preview' });
    await preview.getByText('How likely are you to recommend us?').waitFor();
    assert.equal(await preview.locator('.bw-survey-number').count(), 11);
    await page.getByLabel('Background', { exact: true }).fill('#fff7e6');
  });
  await atBothSizes(opened, 'survey-builder', (p) => p.getByRole('group', { name: 'Survey preview' }).waitFor());
  await step(opened, 'saving the survey failed', async () => {
    await page.getByRole('button', { name: 'Save as draft' }).first().click();
    await page.getByRole('heading', { name: 'Checkout feedback' }).waitFor();
  });
  surveyId = page.url().split('/surveys/')[1].split(/[?#]/)[0];
  const stored = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/surveys/${surveyId}/` });
  const survey = stored.json();
  assert.deepEqual(
    survey.questions.map((q: { type: string; scale?: number; choices?: string[] }) => [q.type, q.scale ?? null, q.choices ?? null]),
    [
      ['rating', 10, null],
      ['single_choice', null, ['Yes', 'No']],
      ['open', null, null],
    ],
  );
  assert.equal(survey.appearance.backgroundColor, '#fff7e6');
  assert.equal(survey.start_date, null, 'saved as a draft');
});

test('the builder shows the server’s error beside its field', { timeout: TEST_MS }, async (ctx) => {
  if (!surveyId) return ctx.skip('needs the survey from the previous test');
  const { page } = opened;
  await step(opened, 'the name clash was not shown beside the name', async () => {
    await page.goto('/surveys/new');
    await page.getByLabel('Name', { exact: true }).fill('Checkout feedback');
    await page.getByRole('button', { name: 'Save as draft' }).first().click();
    const name = page.locator('.field', { has: page.getByLabel('Name', { exact: true }) });
    await name.getByRole('alert').getByText('There is already a survey with this name.').waitFor();
  });
});

test('the survey is launched from its page, answered by posthog-js, and its results count the answer', { timeout: TEST_MS }, async (ctx) => {
  if (!surveyId) return ctx.skip('needs the survey from the first test');
  const { page } = opened;
  await step(opened, 'launching failed', async () => {
    await page.goto(`/surveys/${surveyId}`);
    await page.getByRole('button', { name: 'Launch' }).click();
    await page.getByText('Running', { exact: true }).waitFor();
  });

  const visitor = await browser.newContext();
  await visitor.route('**/*', (route) => {
    const url = new URL(route.request().url());
    return url.origin === site.origin || url.origin === origin ? route.continue() : route.abort();
  });
  const sitePage = await visitor.newPage();
  sitePage.setDefaultTimeout(STEP_MS);
  const setup = {
    token,
    options: {
      api_host: origin,
      bootstrap: { distinctID: 'e2e-survey-visitor', isIdentifiedID: true },
      autocapture: false,
      capture_pageview: false,
      capture_pageleave: false,
      disable_session_recording: true,
      request_batching: false,
      opt_out_useragent_filter: true,
    },
  };
  await sitePage.goto(site.pageUrl(setup));
  const popover = sitePage.locator(`.PostHogSurvey-${surveyId} .ph-survey`);
  await popover.waitFor({ state: 'visible' });
  await popover.getByText('How likely are you to recommend us?').waitFor();
  await popover.locator('.ratings-number', { hasText: /^9$/ }).click();
  await popover.locator('button.form-submit').click();
  await popover.getByText('Did you find what you needed?').waitFor();
  await popover.getByText('Yes', { exact: true }).click();
  await popover.locator('button.form-submit').click();
  await popover.getByText('What should we improve?').waitFor();
  await popover.locator('textarea').fill(OPEN_ANSWER);
  await popover.locator('button.form-submit').click();
  await eventually(
    'the stats counting the response',
    async () => (await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/surveys/${surveyId}/stats/` })).json(),
    (body) => body.stats?.['survey sent']?.total_count === 1,
    { timeoutMs: STEP_MS, intervalMs: 200 },
  );
  await visitor.close();

  await step(opened, 'the results page did not count the response', async () => {
    await page.goto(`/surveys/${surveyId}`);
    const tile = page.locator('.stat-tile', { hasText: 'Responses' });
    await tile.locator('.stat-tile-value', { hasText: /^1$/ }).waitFor();
  });

  await step(opened, 'the per-question results did not show the answer', async () => {
    await page.getByText('NPS 100').waitFor();
    await page.locator('.open-answers').getByText(OPEN_ANSWER).waitFor();
  });
  await atBothSizes(opened, 'survey-results', (p) => p.getByText('NPS 100').waitFor());
  // The visitor tells who they are: the table names them by e-mail, as the CSV does.
  const identified = await t.app.inject({
    method: 'POST',
    url: '/batch/',
    payload: { api_key: token, batch: [{ event: '$identify', distinct_id: 'e2e-survey-visitor', properties: { $set: { email: 'visitor@example.com' } } }] },
  });
  assert.equal(identified.statusCode, 200, identified.body);
  await step(opened, 'the responses table did not show, archive and hide the answer', async () => {
    await page.getByRole('tab', { name: 'Responses' }).click();
    const row = page.getByRole('row', { name: new RegExp(OPEN_ANSWER.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
    await row.waitFor();
    await row.getByRole('link', { name: 'visitor@example.com' }).waitFor();
    await row.getByText('e2e-survey-visitor').waitFor();
    // Every column in view at 1366 px, the archive button included (the table scrolls otherwise).
    const wrap = await page.locator('.responses-table .table-wrap').evaluate((element) => element.scrollWidth - element.clientWidth);
    assert.ok(wrap <= 1, `the responses table scrolls sideways by ${wrap}px at 1366 px`);
  });
  await atBothSizes(opened, 'survey-responses', (p) => p.getByRole('link', { name: 'visitor@example.com' }).waitFor());
  await step(opened, 'the responses table did not archive and hide the answer', async () => {
    const row = page.getByRole('row', { name: new RegExp(OPEN_ANSWER.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
    await row.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('No responses match.').waitFor();
    await page.getByLabel('Exclude archived responses').uncheck();
    const archived = page.getByRole('row', { name: /Archived/ });
    await archived.waitFor();
    await archived.getByRole('button', { name: 'Unarchive' }).click();
    await page.getByRole('row', { name: /Archived/ }).waitFor({ state: 'detached' });
  });
  const csv = await page.request.get(`/api/projects/${t.projectId}/surveys/${surveyId}/responses/?format=csv`);
  assert.equal(csv.status(), 200);
  const text = await csv.text();
  assert.ok(text.includes('"Faster pages, ""please"" =1+1"'), `the CSV quotes the answer: ${text}`);
  // The survey list's count leaves archived responses out: unarchive the answer for the tests after.
  const listed = await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/surveys/${surveyId}/responses/` });
  for (const response of listed.json().results as { uuid: string; archived: boolean }[]) {
    if (!response.archived) continue;
    const unarchived = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/surveys/${surveyId}/responses/${response.uuid}/unarchive/` });
    assert.equal(unarchived.statusCode, 200, unarchived.body);
  }
});

test('the survey list shows the status and the response count', { timeout: TEST_MS }, async (ctx) => {
  if (!surveyId) return ctx.skip('needs the survey from the first test');
  await atBothSizes(opened, 'surveys-list', async (p) => {
    await p.goto('/surveys');
    const row = p.getByRole('row', { name: /Checkout feedback/ });
    await row.getByText('Running').waitFor();
    await row.getByRole('cell', { name: '1', exact: true }).waitFor();
  });
});

test('event definitions: filtered list, a definition edited with its volume chart and properties, the generated code, the history', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const created = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/event_definitions/`, payload: { name: 'checkout_completed' } });
  assert.equal(created.statusCode, 201, created.body);
  const id = String(created.headers.location).split('/event_definitions/')[1].replace(/\/$/, '');
  await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/event_definitions/`, payload: { name: 'page_scrolled' } });
  for (let day = 0; day < 5; day++) {
    for (let n = 0; n <= day; n++) {
      await t.db.pool.query(`INSERT INTO events (project_id, uuid, event, distinct_id, timestamp) VALUES ($1, gen_random_uuid(), 'checkout_completed', 'someone', now() - make_interval(days => $2))`, [t.projectId, day]);
    }
  }
  await step(opened, 'the list did not filter', async () => {
    await page.goto('/data-management/events');
    await page.getByRole('link', { name: 'checkout_completed' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).fill('scroll');
    await page.getByRole('link', { name: 'page_scrolled' }).waitFor();
    await page.getByRole('link', { name: 'checkout_completed' }).waitFor({ state: 'detached' });
  });
  await atBothSizes(opened, 'event-definitions-list', (p) => p.getByRole('link', { name: 'page_scrolled' }).waitFor());
  await step(opened, 'the definition was not edited', async () => {
    await page.goto(`/data-management/events/${id}`);
    await page.getByLabel('Description', { exact: true }).fill('A paid order');
    const tags = page.getByLabel('Tags', { exact: true });
    await tags.fill('revenue');
    await tags.press('Enter');
    await page.getByLabel('Verified', { exact: true }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved "checkout_completed".').waitFor();
    await page.getByRole('img', { name: 'checkout_completed per day, last 30 days' }).waitFor();
  });
  const stored = (await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/event_definitions/${id}/` })).json();
  assert.equal(stored.description, 'A paid order');
  assert.deepEqual(stored.tags, ['revenue']);
  assert.equal(stored.verified, true);
  assert.equal(stored.verified_by?.email, OWNER_EMAIL);
  await atBothSizes(opened, 'event-definition', (p) => p.getByRole('img', { name: 'checkout_completed per day, last 30 days' }).waitFor());
  await step(opened, 'the verified filter did not keep the verified event', async () => {
    await page.goto('/data-management/events?verified=true');
    await page.getByRole('link', { name: 'checkout_completed' }).waitFor();
    await page.getByRole('link', { name: 'page_scrolled' }).waitFor({ state: 'detached' });
  });
  await step(opened, 'a property group was not created and attached', async () => {
    await page.goto(`/data-management/events/${id}?tab=schema`);
    await page.getByRole('heading', { name: 'No property groups attached' }).waitFor();
    await page.getByRole('button', { name: 'New property group' }).click();
    await page.getByLabel('Group name').fill('Order');
    await page.getByLabel('Property 1: name').fill('order_total');
    await page.getByLabel('Property 1: type').selectOption('Numeric');
    await page.getByRole('dialog').getByLabel('Required').check();
    await page.getByRole('button', { name: 'Create and attach' }).click();
    await page.getByRole('heading', { name: 'Order' }).waitFor();
    await page.getByRole('cell', { name: 'order_total' }).waitFor();
  });
  await atBothSizes(opened, 'event-definition-schema', (p) => p.getByRole('cell', { name: 'order_total' }).waitFor());
  await step(opened, 'the generated code was not shown', async () => {
    await page.goto(`/data-management/events/${id}?tab=code`);
    await page.locator('.code-block').getByText('checkout_completed').first().waitFor();
    await page.locator('.code-block').getByText(/order_total/).first().waitFor();
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await page.getByRole('tab', { name: 'Go' }).click();
    await page.locator('.code-block').getByText('package').first().waitFor();
  });
  await atBothSizes(opened, 'event-definition-code', (p) => p.locator('.code-block').first().waitFor());
  await step(opened, 'the history did not name the person', async () => {
    await page.goto(`/data-management/events/${id}?tab=history`);
    await page.locator('.activity-entry').first().getByText('Admin').waitFor();
    await page.goto('/activity?scope=event_definitions');
    await page.locator('.activity-entry', { hasText: 'checkout_completed' }).first().waitFor();
    await page.goto('/activity?scope=surveys');
    await page.locator('.activity-entry', { hasText: 'Checkout feedback' }).first().waitFor();
  });
  await atBothSizes(opened, 'activity-surveys', (p) => p.locator('.activity-entry').first().waitFor());
});
