// The console's Early access page in Chromium: a feature is created, its stage changed from the
// list (the flag follows), a person who opted in by event is listed, the posthog-js snippet shown;
// screenshots at 1366 and 390 px.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL } from '../helpers/session.ts';
import { eventually } from '../helpers/eventually.ts';
import { atBothSizes, launchChromium, openConsole, signInOnPage, step, STEP_MS, type ConsolePage } from './support/console-browser.ts';

let t: TestApp;
let origin: string;
let token: string;
let browser: Browser;
let opened: ConsolePage;

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { rows } = await t.db.pool.query<{ api_token: string }>('SELECT api_token FROM projects WHERE id = $1', [t.projectId]);
  token = rows[0].api_token;
  browser = await launchChromium();
  opened = await openConsole(browser, origin);
  await givePassword(t);
});
after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

test('create a feature, change its stage, see who opted in and the snippet', { timeout: 120_000 }, async () => {
  const { page } = opened;
  await signInOnPage(opened, OWNER_EMAIL, GOOD_PASSWORD);
  await step(opened, 'the page did not open', async () => {
    await page.goto(`${origin}/early_access_features`);
    await page.getByText('No early access features yet').waitFor();
  });
  await step(opened, 'creating a feature failed', async () => {
    await page.getByLabel('Name').fill('Sprocket preview');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'Sprocket preview' }).waitFor();
  });
  const list = (await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/early_access_feature/` })).json();
  const feature = list.results[0];
  assert.equal(feature.stage, 'beta');
  const flagKey: string = feature.feature_flag.key;
  await t.app.inject({
    method: 'POST',
    url: '/batch/',
    payload: { api_key: token, batch: [{ uuid: randomUUID(), event: '$feature_enrollment_update', distinct_id: 'early-bird', timestamp: new Date().toISOString(), properties: { $feature_flag: flagKey, $feature_enrollment: true, $set: { [`$feature_enrollment/${flagKey}`]: true } } }] },
  });
  await step(opened, 'the stage did not change', async () => {
    await page.getByLabel('Stage of Sprocket preview').selectOption('alpha');
    await eventually('the stage stored', async () => (await t.request({ method: 'GET', url: `/api/projects/${t.projectId}/early_access_feature/${feature.id}/` })).json(), (body) => body.stage === 'alpha', { timeoutMs: STEP_MS, intervalMs: 200 });
  });
  await step(opened, 'the opted-in person or the snippet did not show', async () => {
    await page.getByRole('button', { name: 'Sprocket preview' }).click();
    await page.getByText('early-bird').waitFor();
    await page.getByText(`updateEarlyAccessFeatureEnrollment('${flagKey}', true)`).waitFor();
  });
  await atBothSizes(opened, 'early-access', (p) => p.getByText('early-bird').waitFor());
});
