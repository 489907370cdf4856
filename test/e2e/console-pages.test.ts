// Every page of the console, in headless Chromium against a project with data (persons, flag calls,
// a cohort, keys): each renders its content at a wide and a narrow window without a console error or
// a request to another host, and keyboard users can reach the navigation. With CONSOLE_SCREENSHOTS=1
// the run writes docs/screenshots/*.png.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { atBothSizes, type ConsolePage, NARROW, ownerConsole, step, WIDE } from './support/console-browser.ts';

const TEST_MS = 180_000;
const DAY = 86_400_000;

let t: TestApp;
let origin: string;
let browser: Browser;
let opened: ConsolePage;
let flagId: number;
let cohortId: number;
let personUuid: string;

async function api(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) {
  const response = await t.request({ method, url: `/api/projects/${t.projectId}/${url}`, payload });
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

async function seed(): Promise<void> {
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  const token = rows[0].api_token;
  const people = [
    { id: 'ada', email: 'ada@example.com', plan: 'pro', country: 'GB' },
    { id: 'grace', email: 'grace@example.com', plan: 'enterprise', country: 'US' },
    { id: 'linus', email: 'linus@example.org', plan: 'free', country: 'FI' },
    { id: 'margaret', email: 'margaret@example.com', plan: 'pro', country: 'US' },
  ];
  const now = Date.now();
  const batch = [
    ...people.map((person) => ({ event: '$identify', distinct_id: person.id, properties: { $set: { email: person.email, plan: person.plan, country: person.country } }, timestamp: new Date(now - 20 * DAY).toISOString() })),
    ...Array.from({ length: 60 }, (_, i) => ({
      event: '$feature_flag_called',
      distinct_id: people[i % people.length].id,
      properties: { $feature_flag: 'pricing-page', $feature_flag_response: i % 3 === 0 ? 'annual' : 'control' },
      timestamp: new Date(now - (i % 14) * DAY - 3_600_000).toISOString(),
    })),
  ];
  const ingested = await fetch(`${origin}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: token, batch }) });
  assert.equal(ingested.status, 200);

  const cohort = await api('POST', 'cohorts/', {
    name: 'Paying customers',
    filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'person', key: 'plan', operator: 'exact', value: ['pro', 'enterprise'] }] }] } },
  });
  cohortId = cohort.id;
  const flag = await api('POST', 'feature_flags/', {
    key: 'pricing-page',
    name: 'New pricing page',
    tags: ['growth', 'web'],
    filters: {
      groups: [
        { properties: [{ key: 'id', type: 'cohort', value: cohortId }], rollout_percentage: 100, description: 'Paying customers first' },
        { properties: [{ key: 'country', type: 'person', operator: 'exact', value: ['US', 'GB'] }], rollout_percentage: 30 },
      ],
      multivariate: { variants: [{ key: 'control', rollout_percentage: 60 }, { key: 'annual', name: 'Annual billing first', rollout_percentage: 40 }] },
      payloads: { annual: '{"discount": 0.2}' },
    },
  });
  flagId = flag.id;
  await api('PATCH', `feature_flags/${flagId}/`, { filters: { ...flag.filters, groups: [...flag.filters.groups, { properties: [], rollout_percentage: 5 }] } });
  await api('POST', 'feature_flags/', { key: 'dark-mode', name: 'Dark theme', active: false, tags: ['ui'], filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  await api('POST', 'feature_flags/', {
    key: 'legacy-search',
    name: 'The old search page',
    created_at: new Date(now - 90 * DAY).toISOString(),
    filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
  });
  const keys = await t.request({ method: 'POST', url: '/api/personal_api_keys/', payload: { label: 'CI deploys', scopes: ['feature_flag:write'] } });
  assert.equal(keys.statusCode, 201);
  const persons = await api('GET', 'persons/?search=ada');
  personUuid = persons.results[0].uuid;
}

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await seed();
  ({ browser, opened } = await ownerConsole(t, origin));
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

interface Visit {
  name: string;
  path: () => string;
  /** What must be on screen once the page has loaded. */
  ready: (page: Page) => Promise<unknown>;
}

const VISITS: Visit[] = [
  { name: 'flags-list', path: () => '/feature_flags', ready: (page) => page.getByRole('link', { name: 'pricing-page' }).waitFor() },
  { name: 'flag-overview', path: () => `/feature_flags/${flagId}`, ready: (page) => page.getByText(/of 4 persons match/).first().waitFor() },
  { name: 'flag-usage', path: () => `/feature_flags/${flagId}?tab=usage`, ready: (page) => page.locator('.chart-canvas canvas').first().waitFor() },
  {
    name: 'flag-evaluate',
    path: () => `/feature_flags/${flagId}?tab=evaluate`,
    ready: async (page) => {
      await page.getByLabel('Distinct id').fill('grace');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await page.getByText('It matched condition set 1.').waitFor();
    },
  },
  { name: 'flag-history', path: () => `/feature_flags/${flagId}?tab=history`, ready: (page) => page.getByText('changed this').first().waitFor() },
  { name: 'flag-edit', path: () => `/feature_flags/${flagId}/edit`, ready: (page) => page.getByRole('region', { name: 'Condition set 3' }).waitFor() },
  { name: 'cohorts-list', path: () => '/cohorts', ready: (page) => page.getByRole('link', { name: 'Paying customers' }).waitFor() },
  { name: 'cohort-edit', path: () => `/cohorts/${cohortId}`, ready: (page) => page.getByRole('link', { name: 'grace@example.com' }).waitFor() },
  { name: 'persons-list', path: () => '/persons', ready: (page) => page.getByRole('link', { name: 'margaret@example.com' }).waitFor() },
  { name: 'person', path: () => `/persons/${personUuid}`, ready: (page) => page.getByRole('cell', { name: 'pricing-page' }).waitFor() },
  { name: 'activity', path: () => '/activity', ready: (page) => page.getByText('legacy-search').first().waitFor() },
  { name: 'settings-project', path: () => '/settings/project', ready: (page) => page.getByText('posthog-js set-up').waitFor() },
  { name: 'settings-keys', path: () => '/settings/personal-api-keys', ready: (page) => page.getByText('CI deploys').waitFor() },
  { name: 'settings-account', path: () => '/settings/account', ready: (page) => page.getByRole('heading', { name: /password/ }).waitFor() },
];

test('every page renders its content at a wide and a narrow window, with no console error and nothing from other hosts', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  for (const visit of VISITS) {
    await step(opened, `${visit.name} did not load`, () => page.goto(visit.path()));
    await atBothSizes(opened, visit.name, visit.ready);
  }
  assert.deepEqual(opened.problems, [], 'no console errors, page errors or failed requests');
  assert.deepEqual(opened.outside, [], 'nothing requested from other hosts');
});

test('keyboard: skip link, navigation by Tab, and the narrow menu opens and closes', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await page.setViewportSize(WIDE);
  await page.goto('/feature_flags');
  await page.getByRole('link', { name: 'pricing-page' }).waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');

  await page.setViewportSize(NARROW);
  const menu = page.getByRole('button', { name: 'Menu' });
  await menu.click();
  assert.equal(await menu.getAttribute('aria-expanded'), 'true');
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Cohorts' }).click();
  await page.getByRole('heading', { name: 'Cohorts' }).waitFor();
  assert.equal(await menu.getAttribute('aria-expanded'), 'false', 'the menu closes after navigating');
  await page.setViewportSize(WIDE);
});

test('a client-side route loaded directly serves the app, and an unknown page says so', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await page.goto(`/feature_flags/${flagId}/edit`);
  await page.getByRole('heading', { name: 'Edit pricing-page' }).waitFor();
  await page.goto('/no/such/page');
  await page.getByRole('heading', { name: 'There is no page here' }).waitFor();
  await page.goto('/feature_flags/999999');
  await page.getByText('Not found.').waitFor();
});

test('project settings: the project token is reset and the secret token rotated from the page; the server follows at once', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  opened.problems.length = 0; // the test before this one visits a flag that does not exist on purpose
  await page.setViewportSize(WIDE);
  await page.goto('/settings/project');
  const tokenField = page.getByLabel('Project token', { exact: true });
  await tokenField.waitFor();
  const oldToken = await tokenField.inputValue();
  const flagsWith = (token: string) =>
    fetch(`${origin}/flags/?v=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, distinct_id: 'ada' }) });
  assert.equal((await flagsWith(oldToken)).status, 200);

  await step(opened, 'the project token was not reset', async () => {
    await page.getByRole('button', { name: 'Reset token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByText('The project token was reset.').waitFor();
    await page.waitForFunction((old) => (document.querySelector('input[readonly]') as HTMLInputElement | null)?.value !== old, oldToken);
  });
  const newToken = await tokenField.inputValue();
  assert.match(newToken, /^phc_/);
  assert.notEqual(newToken, oldToken);
  assert.equal((await flagsWith(oldToken)).status, 401);
  assert.equal((await flagsWith(newToken)).status, 200);

  const secret = await step(opened, 'the secret token was not rotated', async () => {
    await page.getByRole('button', { name: 'Rotate secret token' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new secret token' });
    await dialog.waitFor();
    const value = await dialog.getByLabel('Secret token').inputValue();
    await dialog.getByRole('button', { name: 'Done' }).click();
    return value;
  });
  assert.match(secret, /^phs_[A-Za-z0-9_-]{43}$/);
  const definitions = await fetch(`${origin}/api/feature_flag/local_evaluation`, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(definitions.status, 200);
  await page.getByText(`phs_...${secret.slice(-4)}`).waitFor();
  assert.deepEqual(opened.problems, [], 'no console errors, page errors or failed requests');
});
