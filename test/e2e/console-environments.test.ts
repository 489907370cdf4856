// Environments in the console, in headless Chromium: the owner adds a Staging environment with its
// colour from Settings, the shell's switcher then lists the project's environments, switching
// changes the address (/project/{id}/…) and paints the shell in Staging's colour; an old address
// lands in the current environment, another environment's address switches to it, one out of
// reach says so; a flag's page compares it across environments and promotes it from Staging to
// Production after a preview of the difference, refusing when Production changed since the
// preview; a project created from Settings opens on its checklist until it is skipped.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL, personWithPassword } from '../helpers/session.ts';
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
    // The section stays; the address names the environment.
    await page.waitForURL(`${origin}/project/${rows[0].id}/settings/project`);
    await page.locator('.project-switcher[data-colored]').waitFor();
    await page.locator('.environment-strip').getByText('Staging').waitFor();
  });
  const strip = await page.locator('.environment-strip').evaluate((element) => getComputedStyle(element).backgroundColor);
  assert.equal(strip, 'rgb(245, 166, 35)', "the band across the page is Staging's colour");
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
  await step(console, 'an address written before environments had addresses lands in the current one', async () => {
    await page.goto(`/feature_flags/${inStaging.json().id}?tab=environments`);
    await page.waitForURL(`${origin}/project/${rows[0].id}/feature_flags/${inStaging.json().id}?tab=environments`);
  });
  const row = (name: string) => page.locator(`tr[data-environment="${name}"]`);
  await step(console, 'comparing the flag across environments', async () => {
    await row('Production').getByText('Off').waitFor();
    await row('Production').getByText('20% of all users').waitFor();
    await row('Staging').getByText('On').waitFor();
    await row('Staging').getByText('100% of all users').waitFor();
  });
  await atBothSizes(console, 'flag-environments', (p) => p.getByText('In every environment of this project').waitFor());

  // Promote Staging's flag to Production, after the preview of what changes there. Production is
  // changed by someone else while the preview is open: the promotion is refused and says so.
  await step(console, 'promoting staging → production after Production changed', async () => {
    await row('Production').getByRole('button', { name: 'Promote to Production' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('State').waitFor();
    assert.match((await dialog.textContent()) ?? '', /State: Off → On/);
    assert.match((await dialog.textContent()) ?? '', /Release: 20% of all users → 100% of all users/);
    await screenshotNow(console, 'flag-promote-preview-wide');
    const meanwhile = await t.request({
      method: 'PATCH',
      url: `/api/environments/${t.projectId}/feature_flags/${inProduction.json().id}/`,
      payload: { filters: { groups: [{ properties: [], rollout_percentage: 30 }] } },
    });
    assert.equal(meanwhile.statusCode, 200, meanwhile.body);
    await dialog.getByRole('button', { name: 'Promote' }).click();
    await dialog.getByText('changed since you looked — preview again').waitFor();
    await dialog.getByText(`The feature flag was updated by ${OWNER_EMAIL} since you started editing it.`, { exact: false }).waitFor();
  });
  await atBothSizes(console, 'flag-promote-conflict', (p) => p.getByRole('dialog').getByRole('button', { name: 'Preview again' }).waitFor());
  const unchanged = await t.request({ method: 'GET', url: `/api/environments/${t.projectId}/feature_flags/${inProduction.json().id}/` });
  assert.equal(unchanged.json().filters.groups[0].rollout_percentage, 30, "the other person's change stands");
  assert.equal(unchanged.json().active, false);
  await step(console, 'previewing again and promoting', async () => {
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Preview again' }).click();
    await dialog.getByText(/Release: 30% of all users → 100% of all users/).waitFor();
    assert.match(page.url(), new RegExp(`/project/${rows[0].id}/feature_flags/${inStaging.json().id}`), 'the address says Staging');
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

test("another environment's address switches to it; one out of reach says so", { timeout: TEST_MS }, async () => {
  const console = await openConsole(browser, origin);
  opened.push(console);
  const { page } = console;
  await signInOnPage(console, OWNER_EMAIL, GOOD_PASSWORD);
  const { rows } = await t.db.pool.query<{ current_project_id: number }>('SELECT current_project_id FROM users WHERE email = $1', [OWNER_EMAIL]);
  const other = rows[0].current_project_id === t.projectId ? null : rows[0].current_project_id;
  await step(console, "Production's address", async () => {
    await page.goto(`/project/${t.projectId}/feature_flags`);
    await page.getByRole('heading', { name: 'Feature flags', exact: true }).waitFor();
    await page.locator('.environment-strip').getByText('Production').waitFor();
    assert.equal(new URL(page.url()).pathname, `/project/${t.projectId}/feature_flags`);
  });
  const now = await t.db.pool.query<{ current_project_id: number }>('SELECT current_project_id FROM users WHERE email = $1', [OWNER_EMAIL]);
  assert.equal(now.rows[0].current_project_id, t.projectId, other === null ? 'stays current' : 'the address made it current');
  await atBothSizes(console, 'environment-address', (p) => p.locator('.environment-strip').getByText('Production').waitFor());
  await step(console, 'an environment out of reach', async () => {
    await page.goto('/project/987654/feature_flags');
    await page.getByRole('heading', { name: 'This environment is not one you can see' }).waitFor();
    await page.getByRole('link', { name: 'Go to your current environment' }).click();
    await page.waitForURL(`${origin}/project/${t.projectId}/feature_flags`);
  });
  const after = await t.db.pool.query<{ current_project_id: number }>('SELECT current_project_id FROM users WHERE email = $1', [OWNER_EMAIL]);
  assert.equal(after.rows[0].current_project_id, t.projectId, 'nothing switched');
});

test('a project created from Settings opens on its checklist until it is skipped', { timeout: TEST_MS }, async () => {
  const console = await openConsole(browser, origin);
  opened.push(console);
  const { page } = console;
  await signInOnPage(console, OWNER_EMAIL, GOOD_PASSWORD);
  await step(console, 'creating the project', async () => {
    await page.goto('/settings/project');
    await page.getByLabel('Project name').fill('Mobile app');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByText("Mobile app's secret token (shown once)").waitFor();
  });
  const { rows } = await t.db.pool.query<{ id: number; project_group_id: number }>("SELECT id, project_group_id FROM projects WHERE name = 'Mobile app'");
  assert.equal(rows.length, 1);
  assert.equal(rows[0].project_group_id, rows[0].id, "a project's id is its first environment's");
  await step(console, 'opening it lands on the checklist', async () => {
    await page.getByRole('link', { name: 'Open Mobile app' }).click();
    await page.waitForURL(`${origin}/project/${rows[0].id}/onboarding`);
    await page.getByRole('heading', { name: 'Get started', exact: true }).waitFor();
  });
  await atBothSizes(console, 'onboarding-new-project', (p) => p.getByRole('button', { name: 'Skip: open on the flag list' }).waitFor());
  await step(console, 'the start page stays the checklist, until skipped', async () => {
    await page.goto(`/project/${rows[0].id}`);
    await page.waitForURL(`${origin}/project/${rows[0].id}/onboarding`);
    await page.getByRole('button', { name: 'Skip: open on the flag list' }).click();
    await page.waitForURL(`${origin}/project/${rows[0].id}/feature_flags`);
    await page.goto('/');
    await page.waitForURL(`${origin}/project/${rows[0].id}/feature_flags`);
    await page.getByRole('heading', { name: 'Feature flags', exact: true }).waitFor();
  });
  await step(console, "the empty flag list links to the checklist, which offers to open on it again", async () => {
    await page.getByRole('link', { name: 'Get started: install an SDK' }).click();
    await page.getByRole('button', { name: 'Open on this checklist again' }).click();
    await page.goto('/');
    await page.waitForURL(`${origin}/project/${rows[0].id}/onboarding`);
  });
});

test('a member sees project and environment creation disabled, with the reason', { timeout: TEST_MS }, async () => {
  const { rows } = await t.db.pool.query<{ organization_id: string }>('SELECT organization_id FROM projects WHERE id = $1', [t.projectId]);
  const { email, userId } = await personWithPassword(t, rows[0].organization_id, 'member');
  await t.db.pool.query('UPDATE users SET current_project_id = $2 WHERE id = $1', [userId, t.projectId]);
  const console = await openConsole(browser, origin);
  opened.push(console);
  const { page } = console;
  await signInOnPage(console, email, GOOD_PASSWORD);
  await step(console, 'the disabled controls', async () => {
    await page.goto('/settings/project');
    await page.getByLabel('Project name').fill('Not mine to make');
    const create = page.getByRole('button', { name: 'Create project' });
    assert.equal(await create.getAttribute('aria-disabled'), 'true');
    await create.focus();
    await page.getByRole('tooltip').filter({ hasText: 'Only admins and owners of the organization can do this.' }).first().waitFor();
    await create.click({ force: true });
  });
  const made = await t.db.pool.query("SELECT 1 FROM projects WHERE name = 'Not mine to make'");
  assert.equal(made.rowCount, 0, 'nothing was sent');
});
