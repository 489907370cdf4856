// "Leave organization" in Settings → Members, in headless Chromium: the only owner finds it disabled
// with the server's reason and stays; a member leaves, is signed out, and is no longer a member.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { GOOD_PASSWORD, givePassword, OWNER_EMAIL, personWithPassword } from '../helpers/session.ts';
import { launchChromium, openConsole, screenshot, signInOnPage, step } from '../e2e/support/console-browser.ts';

const TEST_MS = 120_000;

let t: TestApp;
let origin: string;
let browser: Browser;
let organizationId: string;

async function isMember(email: string): Promise<boolean> {
  const { rows } = await t.db.pool.query(
    `SELECT 1 FROM organization_memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1 AND m.organization_id = $2`,
    [email, organizationId],
  );
  return rows.length === 1;
}

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { rows } = await t.db.pool.query<{ organization_id: string }>('SELECT organization_id::text FROM projects WHERE id = $1', [t.projectId]);
  organizationId = rows[0].organization_id;
  await givePassword(t);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.close();
});

test('the only owner cannot leave: the button is disabled with the reason and nothing changes', { timeout: TEST_MS }, async () => {
  const opened = await openConsole(browser, origin);
  const { page } = opened;
  await signInOnPage(opened, OWNER_EMAIL, GOOD_PASSWORD);
  const writes: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'GET') writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  await step(opened, 'leaving as the only owner', async () => {
    await page.goto('/settings/members');
    const leave = page.getByRole('button', { name: 'Leave organization' });
    await leave.waitFor();
    assert.equal(await leave.getAttribute('aria-disabled'), 'true');
    await leave.focus();
    await page.getByRole('tooltip').filter({ hasText: /only owner of this organization/ }).waitFor();
    await page.keyboard.press('Enter');
    assert.equal(await page.getByRole('dialog').count(), 0, 'no dialog opens');
  });
  assert.deepEqual(writes, [], 'nothing was sent');
  assert.equal(await isMember(OWNER_EMAIL), true);
  // Still signed in: the members page still answers.
  await page.getByRole('heading', { name: /Members of/ }).waitFor();
  await opened.context.close();
});

test('a member leaves: signed out at once, and no longer a member', { timeout: TEST_MS }, async () => {
  const { email, userId } = await personWithPassword(t, organizationId, 'member');
  await t.db.pool.query('UPDATE users SET current_project_id = $2 WHERE id = $1', [userId, t.projectId]);
  const opened = await openConsole(browser, origin);
  const { page } = opened;
  await signInOnPage(opened, email, GOOD_PASSWORD);
  await step(opened, 'leaving as a member', async () => {
    await page.goto('/settings/members');
    // A member may remove nobody else: the owner's Remove is disabled; their own Leave is not.
    assert.equal(await page.getByRole('button', { name: 'Remove' }).getAttribute('aria-disabled'), 'true');
    await page.getByRole('button', { name: 'Leave organization' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(/you are signed out/).waitFor();
    await dialog.getByRole('button', { name: 'Leave organization' }).click();
    await page.getByRole('heading', { name: 'Sign in to Bellwether' }).waitFor();
  });
  assert.equal(await isMember(email), false);
  const { rows } = await t.db.pool.query('SELECT 1 FROM sessions WHERE user_id = $1', [userId]);
  assert.equal(rows.length, 0, 'no session of theirs is left');
  await opened.context.close();
});

test('a person without a current environment gets a page that says so, not a crash', { timeout: TEST_MS }, async () => {
  const { email, userId } = await personWithPassword(t, organizationId, 'member');
  await t.db.pool.query('UPDATE users SET current_project_id = NULL WHERE id = $1', [userId]);
  const opened = await openConsole(browser, origin);
  const { page } = opened;
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await signInOnPage(opened, email, GOOD_PASSWORD, 'No project to open');
  await step(opened, 'no current environment', async () => {
    await page.getByRole('link', { name: /^Open / }).first().click();
    await page.waitForURL(new RegExp(`/project/${t.projectId}(/|$)`));
    await page.getByRole('navigation').first().waitFor();
  });
  const { rows } = await t.db.pool.query<{ current_project_id: number | null }>('SELECT current_project_id FROM users WHERE id = $1', [userId]);
  assert.equal(Number(rows[0].current_project_id), t.projectId, 'opening it made it their current environment');

  const { rows: uuids } = await t.db.pool.query<{ uuid: string }>('SELECT uuid::text FROM users WHERE id = $1', [userId]);
  const removed = await t.request({ method: 'DELETE', url: `/api/organizations/${organizationId}/members/${uuids[0].uuid}/` });
  assert.equal(removed.statusCode, 204, removed.body);
  await step(opened, 'no organization', async () => {
    await signInOnPage(opened, email, GOOD_PASSWORD, 'No project to open');
    await page.getByText(/not a member of any organization/).waitFor();
    await screenshot(opened, 'no-project');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Bellwether' }).waitFor();
  });
  assert.deepEqual(pageErrors, [], 'no uncaught error in the page');
  await opened.context.close();
});
