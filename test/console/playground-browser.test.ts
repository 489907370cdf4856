// The flag playground in headless Chromium: its own page evaluates every flag for made-up person
// properties (value and reason per flag, nothing stored), and the flag page's Playground tab
// evaluates that flag alone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL } from '../helpers/session.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, type ConsolePage } from '../e2e/support/console-browser.ts';

const TEST_MS = 90_000;
let t: TestApp;
let browser: Browser;
let owner: ConsolePage;
let proId = 0;

before(async () => {
  t = await startTestApp();
  const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await givePassword(t);
  const create = async (payload: object) => {
    const response = await t.request({ method: 'POST', url: `/api/projects/${t.projectId}/feature_flags/`, payload });
    assert.equal(response.statusCode, 201, response.body);
    return response.json().id as number;
  };
  proId = await create({
    key: 'pro-dashboard',
    filters: { groups: [{ properties: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro'] }], rollout_percentage: 100 }] },
  });
  await create({
    key: 'checkout-test',
    filters: {
      groups: [{ properties: [], rollout_percentage: 100, variant: 'blue' }],
      multivariate: { variants: [{ key: 'red', rollout_percentage: 50 }, { key: 'blue', rollout_percentage: 50 }] },
      payloads: { blue: '{"color":"#00f"}' },
    },
  });
  await create({ key: 'old-banner', active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
  browser = await launchChromium();
  owner = await openConsole(browser, origin);
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

test('every flag for made-up properties on its own page, one flag on its page', { timeout: TEST_MS }, async () => {
  const { page } = owner;
  await signInOnPage(owner, OWNER_EMAIL, GOOD_PASSWORD);
  const persons = async () => Number((await t.db.pool.query('SELECT count(*) FROM persons')).rows[0].count);
  const personsBefore = await persons();

  await step(owner, 'opening the playground from the flag list', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByRole('heading', { name: 'Flag playground' }).waitFor();
  });
  await step(owner, 'evaluating every flag', async () => {
    await page.getByLabel('Distinct id').fill('ada');
    await page.getByLabel('Person properties (JSON)').fill('{"plan": "pro"}');
    await page.getByRole('button', { name: 'Evaluate every flag' }).click();
    const row = (key: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: key, exact: true }) });
    await row('pro-dashboard').getByText('It matched condition set 1.').waitFor();
    await row('checkout-test').getByText('variant “blue”').waitFor();
    await row('old-banner').getByText('The flag is disabled.').waitFor();
  });
  await atBothSizes(owner, 'flag-playground', (p) => p.getByRole('table').waitFor());

  await step(owner, 'a property that is not JSON is refused before sending', async () => {
    await page.getByLabel('Person properties (JSON)').fill('{plan: pro');
    await page.getByText('This is not valid JSON.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Evaluate every flag' }).isDisabled(), true);
  });

  await step(owner, "the flag page's Playground tab evaluates that flag only", async () => {
    await page.goto(`/feature_flags/${proId}?tab=playground`);
    await page.getByLabel('Person properties (JSON)').fill('{"plan": "free"}');
    await page.getByRole('button', { name: 'Evaluate this flag' }).click();
    await page.getByText('It matched no condition set.').waitFor();
    assert.equal(await page.getByRole('row').count(), 2, 'a header and one flag');
  });
  await atBothSizes(owner, 'flag-playground-tab', (p) => p.getByText('It matched no condition set.').waitFor());
  assert.equal(await persons(), personsBefore, 'nothing stored');
  assert.deepEqual(owner.problems, []);
});
