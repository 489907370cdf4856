// Environments in the console, in headless Chromium: the owner adds a Staging environment with its
// colour from Settings, the shell's switcher then lists the project's environments, switching paints
// the shell in Staging's colour; a flag's page compares it across environments and promotes it
// from Staging to Production after a preview of the difference.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL } from '../helpers/session.ts';
import { atBothSizes, launchChromium, openConsole, screenshot as screenshotNow, signInOnPage, step, type ConsolePage } from './support/console-browser.ts';

const TEST_MS = 180_000;

let t: TestApp;
let origin: string;
let browser: Browser;
const opened: ConsolePage[] = [];

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await givePassword(t);
  await t.request({ method: 'PATCH', url: `/api/environments/${t.projectId}/`, payload: { name: 'Production', color: '#d0021b' } });
  browser = await launchChromium();
});

after(async () => {
  for (const each of opened) await each.context.close().catch(() => {});
  await browser?.close().catch(() => {});
  await t?.close();
});

test('the owner adds Staging, switches to it, and the shell says which environment it shows', { timeout: TEST_MS }, async () => {
  const console = await openConsole(browser, origin);
  opened.push(console);
  const { page } = console;
  await signInOnPage(console, OWNER_EMAIL, GOOD_PASSWORD);
  await step(console, 'adding Staging from Settings', async () => {
    await page.goto('/settings/project');
    await page.getByLabel('New environment').fill('Staging');
    await page.getByRole('button', { name: 'Add environment' }).click();
    await page.getByText("The new environment's secret token (shown once)").waitFor();
  });
  const { rows } = await t.db.pool.query<{ id: number; project_group_id: number; color: string }>(
    "SELECT id, project_group_id, color FROM projects WHERE name = 'Staging'",
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].project_group_id, t.projectId);
  assert.equal(rows[0].color, '#f5a623');
  const switcher = page.locator('.project-switcher select');
  await step(console, 'switching to Staging', async () => {
    await switcher.waitFor();
    await switcher.selectOption(String(rows[0].id));
    await page.waitForURL(/\/feature_flags/);
    await page.locator('.project-switcher[data-colored]').waitFor();
  });
  const border = await page.locator('.project-switcher').evaluate((element) => getComputedStyle(element).borderLeftColor);
  assert.equal(border, 'rgb(245, 166, 35)');
  const me = await t.db.pool.query<{ current_project_id: number }>("SELECT current_project_id FROM users WHERE email = $1", [OWNER_EMAIL]);
  assert.equal(me.rows[0].current_project_id, rows[0].id);
  await page.goto('/settings/project');
  await atBothSizes(console, 'environments-settings', (p) => p.getByText('Environments').first().waitFor());

  // The same key in both environments, different in each: the flag's page compares them.
  const flag = (active: boolean, rollout: number) => ({ key: 'new-checkout', name: 'New checkout', active, filters: { groups: [{ properties: [], rollout_percentage: rollout }] } });
  const inStaging = await t.request({ method: 'POST', url: `/api/environments/${rows[0].id}/feature_flags/`, payload: flag(true, 100) });
  assert.equal(inStaging.statusCode, 201, inStaging.body);
  const inProduction = await t.request({ method: 'POST', url: `/api/environments/${t.projectId}/feature_flags/`, payload: flag(false, 20) });
  assert.equal(inProduction.statusCode, 201, inProduction.body);
  await page.goto(`/feature_flags/${inStaging.json().id}?tab=environments`);
  const row = (name: string) => page.locator(`tr[data-environment="${name}"]`);
  await step(console, 'comparing the flag across environments', async () => {
    await row('Production').getByText('Off').waitFor();
    await row('Production').getByText('20% of all users').waitFor();
    await row('Staging').getByText('On').waitFor();
    await row('Staging').getByText('100% of all users').waitFor();
  });
  await atBothSizes(console, 'flag-environments', (p) => p.getByText('In every environment of this project').waitFor());

  // Promote Staging's flag to Production, after the preview of what changes there.
  await step(console, 'promoting staging → production', async () => {
    await row('Production').getByRole('button', { name: 'Promote to Production' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('State').waitFor();
    assert.match((await dialog.textContent()) ?? '', /State: Off → On/);
    assert.match((await dialog.textContent()) ?? '', /Release: 20% of all users → 100% of all users/);
    await screenshotNow(console, 'flag-promote-preview-wide');
    await dialog.getByRole('button', { name: 'Promote' }).click();
    await row('Production').getByText('100% of all users').waitFor();
    await row('Production').getByRole('button', { name: 'Same' }).waitFor();
  });
  const promoted = await t.request({ method: 'GET', url: `/api/environments/${t.projectId}/feature_flags/${inProduction.json().id}/` });
  assert.equal(promoted.json().active, true);
  assert.equal(promoted.json().filters.groups[0].rollout_percentage, 100);
  const untouched = await t.request({ method: 'GET', url: `/api/environments/${rows[0].id}/feature_flags/${inStaging.json().id}/` });
  assert.equal(untouched.json().version, inStaging.json().version, 'the source is not written');
});
