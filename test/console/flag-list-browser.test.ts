// The flag list in headless Chromium with more flags than one page holds: its first page is asked
// for beside "who is signed in?" (not after it) and only once; the numbered pages, the filters and
// the sort live in the address; the switch answers at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Request } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type ConsolePage, ownerConsole, step } from '../e2e/support/console-browser.ts';

const TEST_MS = 120_000;
const FLAGS = 120;

let t: TestApp;
let origin: string;
let browser: Browser;
let opened: ConsolePage;

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  for (let i = 0; i < FLAGS; i += 1) {
    const key = `${i % 3 === 0 ? 'checkout' : 'search'}-${String(i).padStart(3, '0')}`;
    const response = await t.request({
      method: 'POST',
      url: `/api/projects/${t.projectId}/feature_flags/`,
      payload: { key, active: i % 2 === 0, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
    });
    assert.equal(response.statusCode, 201, response.body);
  }
  ({ browser, opened } = await ownerConsole(t, origin));
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

const rowKeys = () => opened.page.locator('table tbody a.list-title').allTextContents();

test('a fresh load asks for the first page beside users/@me (a slow answer does not hold it up), each once', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  const SLOW_MS = 1_500;
  await page.route('**/api/users/@me/', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    await route.continue();
  });
  const seen: Array<{ path: string; request: Request }> = [];
  const listen = (request: Request) => {
    const path = new URL(request.url()).pathname;
    if (path === '/api/users/@me/' || path.endsWith('/feature_flags/')) seen.push({ path, request });
  };
  page.on('request', listen);
  try {
    await step(opened, 'the list did not load', async () => {
      await page.goto('/feature_flags');
      await page.getByText(`1–50 of ${FLAGS} flags`).waitFor();
    });
  } finally {
    page.off('request', listen);
    await page.unroute('**/api/users/@me/');
  }
  const me = seen.filter((entry) => entry.path === '/api/users/@me/');
  const lists = seen.filter((entry) => entry.path.endsWith('/feature_flags/'));
  assert.equal(me.length, 1, `users/@me asked once: ${seen.map((entry) => entry.path).join(', ')}`);
  assert.equal(lists.length, 1, `the list asked once: ${seen.map((entry) => entry.path).join(', ')}`);
  // Sent while users/@me was still on its way: the two travel together.
  const meStart = me[0].request.timing().startTime;
  const listStart = lists[0].request.timing().startTime;
  assert.ok(listStart - meStart < SLOW_MS, `the list request started ${Math.round(listStart - meStart)} ms after users/@me, which took ${SLOW_MS} ms`);
  assert.equal((await rowKeys()).length, 50);
  assert.deepEqual(opened.problems, []);
});

test('numbered pages move through the list and are kept in the address', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await page.goto('/feature_flags?order=key');
  await page.getByText(`1–50 of ${FLAGS} flags`).waitFor();
  const pages = page.getByRole('navigation', { name: 'Pages of flags' });
  assert.equal(await pages.getByRole('button', { name: 'Previous' }).isDisabled(), true);
  assert.equal(await pages.getByRole('button', { name: 'Page 1' }).getAttribute('aria-current'), 'page');

  // While page 3 is on its way the first page's rows stay, and the pager keeps describing them.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const thirdPage = (url: URL) => url.pathname.endsWith('/feature_flags/') && url.searchParams.get('offset') === '100';
  await page.route(thirdPage, async (route) => {
    await held;
    await route.continue();
  });
  try {
    const asked = page.waitForRequest((request) => thirdPage(new URL(request.url())));
    await pages.getByRole('button', { name: 'Page 3' }).click();
    await asked;
    assert.equal((await rowKeys()).length, 50);
    assert.equal(await pages.getByText(`1–50 of ${FLAGS} flags`).count(), 1, 'the pager describes the rows shown');
  } finally {
    release();
  }
  await page.getByText(`101–${FLAGS} of ${FLAGS} flags`).waitFor();
  await page.unroute(thirdPage);
  assert.match(page.url(), /[?&]offset=100(&|$)/);
  assert.match(page.url(), /[?&]order=key(&|$)/, 'the sort stays');
  const third = await rowKeys();
  assert.equal(third.length, FLAGS - 100);
  assert.deepEqual(third, [...third].sort(), 'still sorted by key');
  assert.equal(await pages.getByRole('button', { name: 'Next' }).isDisabled(), true);

  await pages.getByRole('button', { name: 'Previous' }).click();
  await page.getByText(`51–100 of ${FLAGS} flags`).waitFor();

  // A reload of the address shows the same page.
  await page.reload();
  await page.getByText(`51–100 of ${FLAGS} flags`).waitFor();
  assert.equal(await pages.getByRole('button', { name: 'Page 2' }).getAttribute('aria-current'), 'page');
});

test('a search or a filter goes back to the first page; clearing the filters empties the address', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await page.goto('/feature_flags?offset=50');
  await page.getByText(`51–100 of ${FLAGS} flags`).waitFor();
  await page.getByRole('searchbox', { name: 'Search' }).fill('checkout');
  await page.getByText(`1–40 of 40 flags`).waitFor();
  assert.doesNotMatch(page.url(), /offset=/);
  assert.ok((await rowKeys()).every((key) => key.startsWith('checkout-')));

  await page.getByLabel('Status').selectOption('false');
  await page.getByText(`1–20 of 20 flags`).waitFor();
  assert.match(page.url(), /active=false/);

  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByText(`1–50 of ${FLAGS} flags`).waitFor();
  assert.equal(new URL(page.url()).search, '');
  assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), '');

  // Hostile text is only text: it is sent as a parameter and nothing matches.
  await page.getByRole('searchbox', { name: 'Search' }).fill('"><img src=x onerror=alert(1)>&offset=-5');
  await page.getByText('No flags match these filters.').waitFor();
  assert.equal(await page.locator('img[src="x"]').count(), 0);
  assert.deepEqual(opened.problems, []);
});

test('the switch answers at once and the list keeps what the server stored', { timeout: TEST_MS }, async () => {
  const { page } = opened;
  await page.goto('/feature_flags?order=key');
  const first = page.getByRole('switch', { name: /checkout-000$/ });
  await first.waitFor();
  const wasOn = (await first.getAttribute('aria-checked')) === 'true';
  const written = page.waitForResponse((response) => response.request().method() === 'PATCH');
  await first.click();
  await page.getByRole('switch', { name: /checkout-000$/, checked: !wasOn }).waitFor();
  assert.equal((await written).status(), 200);
  const { rows } = await t.db.pool.query<{ active: boolean }>('SELECT active FROM feature_flags WHERE project_id = $1 AND key = $2', [t.projectId, 'checkout-000']);
  assert.equal(rows[0].active, !wasOn);
  assert.deepEqual(opened.problems, []);
});
