// posthog-js (the installed full bundle) in headless Chromium against the service: a page on another
// origin loads the bundle from node_modules, shows a running popover survey created through the
// management API, the answer is sent, and the stats count it. Then the same person, on a fresh
// browser profile, is not shown the survey again: the internal targeting flag, evaluated by /flags
// from the `$survey_responded/<id>` person property that the `survey sent` event set, is off.
// Nothing leaves the machine: every request to another host is aborted and reported.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createSurvey, type Json } from '../surveys/support.ts';
import { startPosthogJsSite, type PosthogJsSite } from './support/posthog-js-site.ts';
import { eventually, never } from '../helpers/eventually.ts';

const CHROMIUM = '/usr/bin/chromium';
/** Bounds every single wait; a step that needs longer is broken. */
const STEP_MS = 20_000;
const POLL = { timeoutMs: STEP_MS, intervalMs: 200 };
const TEST_MS = 120_000;

let t: TestApp;
let apiOrigin: string;
let site: PosthogJsSite;
let browser: Browser | undefined;
let token: string;

before(async () => {
  t = await startTestApp();
  apiOrigin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  site = await startPosthogJsSite();
  assert.notEqual(site.origin, apiOrigin, 'the page and the service must be different origins (CORS)');
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium package (.ci/run does)`);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'], timeout: STEP_MS });
});

after(async () => {
  await browser?.close().catch(() => {});
  await site?.close();
  await t?.close();
});

interface OpenPage {
  context: BrowserContext;
  page: Page;
  /** What the page printed and which requests it made: shown when a step fails. */
  log: string[];
  /** Requests to any host but the page's and the service's (aborted). */
  outside: string[];
  apiRequests: string[];
}

/** A fresh browser profile (empty storage) showing the page as `distinctId`, an identified person. */
async function openPage(distinctId: string): Promise<OpenPage> {
  assert.ok(browser, 'Chromium did not start');
  const context = await browser.newContext();
  const log: string[] = [];
  const outside: string[] = [];
  const apiRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === site.origin || url.origin === apiOrigin) return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  const opened: OpenPage = { context, page, log, outside, apiRequests };
  page.on('console', (message) => log.push(`console.${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => log.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    if (request.url().startsWith(apiOrigin)) apiRequests.push(`${request.method()} ${request.url().slice(apiOrigin.length)}`);
  });
  page.on('requestfailed', (request) => log.push(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ''}`));
  const setup = {
    token,
    options: {
      api_host: apiOrigin,
      bootstrap: { distinctID: distinctId, isIdentifiedID: true },
      autocapture: false,
      capture_pageview: false,
      capture_pageleave: false,
      disable_session_recording: true,
      request_batching: false,
      // Headless Chromium says "HeadlessChrome": posthog-js would drop its events as a bot's.
      opt_out_useragent_filter: true,
      debug: true,
    },
  };
  await step(opened, 'the page did not load posthog-js', async () => {
    await page.goto(site.pageUrl(setup));
    await page.waitForFunction(() => (window as unknown as { __posthogLoaded?: boolean }).__posthogLoaded === true);
  });
  return opened;
}

/** Runs `step`; on failure the error carries what the page logged and requested. */
async function step<T>(opened: OpenPage, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const detail = [
      `${what}: ${(error as Error).message}`,
      '--- requests to the service ---',
      ...opened.apiRequests,
      '--- requests to other hosts (aborted) ---',
      ...opened.outside,
      '--- page log ---',
      ...opened.log.slice(-80),
    ].join('\n');
    throw new Error(detail, { cause: error });
  }
}

/** `promise`, or a failure naming `what` after STEP_MS (page.evaluate has no timeout of its own). */
async function within<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${STEP_MS} ms`)), STEP_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const surveyApi = (path: string) => `/api/projects/${t.projectId}/surveys/${path}`;

async function readJson(url: string): Promise<Json> {
  const response = await t.request({ method: 'GET', url });
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  return response.json();
}

let survey: Json;
let internalFlagKey: string;
/** Set once the popover was answered and submitted: the second test needs it. */
let answered = false;
const ANSWERING_PERSON = 'e2e-answering-person';
const ANSWER = 'Faster pages, please';

test('posthog-js on another origin shows a running popover survey; the answer reaches the stats', { timeout: TEST_MS }, async () => {
  survey = await createSurvey(t, {
    type: 'popover',
    questions: [{ type: 'open', question: 'What should we build next?' }],
    start_date: new Date().toISOString(),
  });
  const feed = await fetch(`${apiOrigin}/api/surveys/?token=${token}`).then((response) => response.json() as Promise<{ surveys: Json[] }>);
  const listed = feed.surveys.find((item) => item.id === survey.id);
  assert.ok(listed, 'the new survey is in the public feed');
  assert.equal(typeof listed.internal_targeting_flag_key, 'string', 'the feed names the internal targeting flag');
  internalFlagKey = listed.internal_targeting_flag_key as string;

  const opened = await openPage(ANSWERING_PERSON);
  const { page } = opened;
  const popover = page.locator(`.PostHogSurvey-${survey.id} .ph-survey`);
  await step(opened, 'the survey popover did not appear', () => popover.waitFor({ state: 'visible' }));
  await step(opened, 'answering the open question failed', async () => {
    await popover.getByText('What should we build next?').waitFor();
    await popover.locator('textarea').fill(ANSWER);
    await popover.locator('button.form-submit').click();
  });
  await step(opened, 'the popover stayed after submitting', () => popover.waitFor({ state: 'detached' }));
  answered = true;

  const stats = await eventually(
    'stats counting one "survey sent" and one "survey shown"',
    () => readJson(surveyApi(`${survey.id}/stats/`)),
    (body) => {
      const counts = body.stats as Record<string, { total_count: number }> | undefined;
      return counts?.['survey sent']?.total_count === 1 && counts?.['survey shown']?.total_count === 1;
    },
    POLL,
  );
  const counted = stats.stats as Record<string, { total_count: number; unique_persons: number }>;
  assert.equal(counted['survey sent'].unique_persons, 1);
  assert.equal(counted['survey dismissed'].total_count, 0, 'nothing was dismissed');
  const responses = await eventually('responses_count naming the survey', () => readJson(surveyApi('responses_count/')), (body) => body[survey.id as string] === 1, POLL);
  assert.equal(responses[survey.id as string], 1);

  const { rows } = await t.db.pool.query<{ properties: Record<string, unknown> }>(
    `SELECT e.properties FROM events e WHERE e.project_id = $1 AND e.event = 'survey sent' AND e.distinct_id = $2`,
    [t.projectId, ANSWERING_PERSON],
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].properties.$survey_id, survey.id);
  const questionId = (listed.questions as Json[])[0]?.id;
  assert.equal(typeof questionId, 'string', 'the question has an id');
  assert.equal(rows[0].properties[`$survey_response_${questionId}`], ANSWER, 'the answer travelled in the event, keyed by question id');
  assert.deepEqual(rows[0].properties.$set, { [`$survey_responded/${survey.id}`]: true });

  assert.ok(
    opened.apiRequests.some((request) => request.startsWith('GET /api/surveys/?')),
    `posthog-js read the feed: ${opened.apiRequests.join(', ')}`,
  );
  assert.deepEqual(opened.outside, [], 'nothing was requested from other hosts (posthog-js needs no script from outside)');
  await opened.context.close();
});

test('the person who answered is not shown the survey again, even on a fresh browser profile', { timeout: TEST_MS }, async (ctx) => {
  if (!answered) return ctx.skip('needs the survey answered in the previous test');
  const responded = `$survey_responded/${survey.id}`;
  await eventually(
    `the person property ${responded} stored from the "survey sent" event's $set`,
    async () => {
      const { rows } = await t.db.pool.query<{ properties: Record<string, unknown> }>(
        `SELECT p.properties FROM persons p JOIN person_distinct_ids d ON d.person_id = p.id
          WHERE d.project_id = $1 AND d.distinct_id = $2`,
        [t.projectId, ANSWERING_PERSON],
      );
      return rows[0]?.properties ?? null;
    },
    (properties) => properties?.[responded] === true,
    POLL,
  );
  const opened = await openPage(ANSWERING_PERSON);
  const { page } = opened;
  // Storage is empty here, so only the server can hide the survey: the internal targeting flag that
  // /flags evaluates from the person's `$survey_responded/<id>`, set by the `survey sent` event.
  const state = await step(opened, 'posthog-js did not load its flags and surveys', () =>
    within(
      'flags and surveys loaded',
      page.evaluate(
        ({ surveyId, flagKey }) =>
          new Promise<{ listed: boolean; flag: boolean | undefined; matching: string[] }>((resolve) => {
            const posthog = (window as unknown as { posthog: PostHogPage }).posthog;
            posthog.onFeatureFlags(() => {
              posthog.getSurveys((surveys) => {
                posthog.getActiveMatchingSurveys((matching) =>
                  resolve({
                    listed: surveys.some((item) => item.id === surveyId),
                    flag: posthog.isFeatureEnabled(flagKey),
                    matching: matching.map((item) => item.id),
                  }),
                );
              });
            });
          }),
        { surveyId: survey.id as string, flagKey: internalFlagKey },
      ),
    ),
  );
  assert.equal(state.listed, true, 'posthog-js read the survey from the feed');
  assert.equal(state.flag, false, 'the internal targeting flag is off for the person who answered');
  assert.deepEqual(state.matching, [], 'no survey matches for this person');
  // While the survey manager acts on what it knows, the popover never appears.
  await never('the popover shown again', () => page.locator(`.PostHogSurvey-${survey.id} .ph-survey`).count(), (count) => count > 0, {
    timeoutMs: 2_000,
    intervalMs: 100,
  });
  assert.deepEqual(opened.outside, []);
  await opened.context.close();

  // Someone else still gets it: the survey itself is still running.
  const other = await openPage('e2e-someone-else');
  await step(other, 'the survey popover did not appear for another person', () =>
    other.page.locator(`.PostHogSurvey-${survey.id} .ph-survey`).waitFor({ state: 'visible' }),
  );
  await other.context.close();
});

interface PostHogPage {
  onFeatureFlags(callback: () => void): void;
  getSurveys(callback: (surveys: { id: string }[]) => void): void;
  getActiveMatchingSurveys(callback: (surveys: { id: string }[]) => void): void;
  isFeatureEnabled(key: string): boolean | undefined;
}
